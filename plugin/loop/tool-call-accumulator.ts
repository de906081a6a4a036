/**
 * Rebuilds whole tool calls from streamed Chat Completions deltas. Providers split a call over many
 * chunks keyed by `index` (not by id: only the first delta of a call carries the id and the name), and
 * some interleave the pieces of parallel calls, so pieces are joined per index, in arrival order.
 */
import { randomBytes } from 'node:crypto';

export interface ToolCallDelta {
  index: number;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface AccumulatedToolCall {
  id: string;
  name: string;
  /** Raw JSON text, not yet parsed: bad JSON is the model's mistake to be told about, not ours to crash on. */
  arguments: string;
}

export class ToolCallAccumulator {
  #calls = new Map<number, { id?: string; name: string; arguments: string }>();

  add(deltas: readonly ToolCallDelta[] | null | undefined): void {
    for (const d of deltas ?? []) {
      let call = this.#calls.get(d.index);
      if (!call) {
        call = { name: '', arguments: '' };
        this.#calls.set(d.index, call);
      }
      if (d.id) call.id = d.id;
      // A name arrives whole in one delta (as openai-node's own accumulator assumes); a repeat replaces it.
      if (d.function?.name) call.name = d.function.name;
      if (d.function?.arguments) call.arguments += d.function.arguments;
    }
  }

  get size(): number {
    return this.#calls.size;
  }

  /** The calls in index order. A provider that sent no id gets a generated one, fixed from here on. */
  finish(): AccumulatedToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id ?? `call_${randomBytes(12).toString('base64url')}`, name: c.name, arguments: c.arguments }));
  }
}
