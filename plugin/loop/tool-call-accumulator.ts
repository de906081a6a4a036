/**
 * Rebuilds whole tool calls from streamed Chat Completions deltas. Providers split a call over many
 * chunks keyed by `index` (only the first delta of a call carries the id and the name), and some
 * interleave the pieces of parallel calls, so pieces are joined per index, in arrival order.
 *
 * Not every endpoint numbers its calls: some send no `index`, or `index: 0` for every call (older
 * Ollama). A delta that brings a new id, or a new name once the call's arguments are a whole JSON value,
 * therefore starts a new call even on an index in use; without an index a delta continues the last call.
 */
import { randomBytes } from 'node:crypto';

export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  /** A string piece; some endpoints send the whole arguments as an object instead. */
  function?: { name?: string | null; arguments?: unknown } | null;
}

export interface AccumulatedToolCall {
  id: string;
  name: string;
  /** Raw JSON text, not yet parsed: bad JSON is the model's mistake to be told about, not ours to crash on. */
  arguments: string;
}

interface Pending {
  /** The wire index the call started on: calls come out in index order, ties in arrival order. */
  index?: number;
  id?: string;
  name: string;
  arguments: string;
}

/** A fresh id in the shape OpenAI uses, for calls whose own id is missing or unusable. */
export const freshToolCallId = (): string => `call_${randomBytes(12).toString('base64url')}`;

const isWholeJson = (text: string): boolean => {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Arguments as text: an object some endpoints send is serialized; anything else non-string is dropped. */
const argumentsText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return '';
};

export class ToolCallAccumulator {
  /** Calls in the order they started. */
  readonly #calls: Pending[] = [];
  /** The call each wire index currently feeds. */
  readonly #byIndex = new Map<number, Pending>();

  add(deltas: readonly ToolCallDelta[] | null | undefined): void {
    for (const d of deltas ?? []) {
      const name = d.function?.name || undefined;
      const index = typeof d.index === 'number' ? d.index : undefined;
      let call = index === undefined ? this.#calls.at(-1) : this.#byIndex.get(index);
      if (call && this.#startsAnother(call, d.id || undefined, name)) call = undefined;
      if (!call) {
        call = { ...(index !== undefined ? { index } : {}), name: '', arguments: '' };
        this.#calls.push(call);
      }
      if (index !== undefined) this.#byIndex.set(index, call);
      if (d.id) call.id = d.id;
      // A name arrives whole in one delta (as openai-node's own accumulator assumes); a repeat replaces it.
      if (name) call.name = name;
      call.arguments += argumentsText(d.function?.arguments);
    }
  }

  /** The legacy `function_call` delta (functions API): one call, continued like a tool call without index. */
  addLegacy(delta: { name?: string | null; arguments?: unknown } | null | undefined): void {
    if (delta) this.add([{ function: delta }]);
  }

  #startsAnother(call: Pending, id: string | undefined, name: string | undefined): boolean {
    if (id && call.id && id !== call.id) return true;
    // No ids to tell calls apart: a second name after a complete arguments value is a second call.
    return !id && !!name && !!call.name && isWholeJson(call.arguments);
  }

  get size(): number {
    return this.#calls.length;
  }

  /** The calls in index order (a stable sort: arrival order otherwise). A call sent without id gets a generated one. */
  finish(): AccumulatedToolCall[] {
    const last = Number.MAX_SAFE_INTEGER;
    return [...this.#calls]
      .sort((a, b) => (a.index ?? last) - (b.index ?? last))
      .map((c) => ({ id: c.id ?? freshToolCallId(), name: c.name, arguments: c.arguments }));
  }
}
