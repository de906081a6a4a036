/**
 * The ordinary tools a loop may run (the contract they implement is plugin/tools/loop-tool.ts), and how a
 * call becomes a tool message. An unknown tool, arguments that are not a JSON object, or a tool that throws
 * all become an error tool message the model can read and correct — the loop never crashes on the model's
 * mistakes (openai-node's runner does the same).
 */
import { errorText, type LoopTool, type ToolRunContext } from '../tools/loop-tool.js';
import { toolResultOf, type ToolContentPart } from '../tools/tool-content.js';
import type { AccumulatedToolCall } from './tool-call-accumulator.js';

export interface ToolCallResult {
  toolCallId: string;
  name: string;
  /** The result as text: what a Chat Completions model and the `tool_result` event get (media described). */
  content: string;
  isError: boolean;
  /** The content parts, when the result has more than text (images, …); the Responses API sends them. */
  parts?: ToolContentPart[];
}

/** Arguments as an object, or a message saying what was wrong with them. */
export function parseToolArguments(raw: string): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  let parsed: unknown;
  try {
    // An empty string is how some providers send "no arguments".
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: `arguments are not valid JSON (${(error as Error).message}); send one JSON object` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, message: `arguments must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : typeof parsed}` };
  }
  return { ok: true, args: parsed as Record<string, unknown> };
}

export class ToolRegistry {
  readonly #tools = new Map<string, LoopTool>();

  constructor(tools: readonly LoopTool[] = []) {
    for (const t of tools) {
      if (this.#tools.has(t.name)) throw Object.assign(new Error(`tool "${t.name}" is registered twice`), { code: 'duplicate_tool' });
      this.#tools.set(t.name, t);
    }
  }

  get(name: string): LoopTool | undefined {
    return this.#tools.get(name);
  }

  list(): LoopTool[] {
    return [...this.#tools.values()];
  }

  /** Runs one call; never throws for anything the model or the tool did. */
  async run(call: AccumulatedToolCall, ctx: ToolRunContext, offered: ReadonlySet<string>): Promise<ToolCallResult> {
    const fail = (message: string): ToolCallResult => ({
      toolCallId: call.id,
      name: call.name,
      content: errorText(message),
      isError: true,
    });
    const tool = this.#tools.get(call.name);
    if (!tool || !offered.has(call.name)) {
      const names = [...offered].join(', ') || 'none';
      return fail(`unknown tool "${call.name}"; available tools: ${names}`);
    }
    const parsed = parseToolArguments(call.arguments);
    if (!parsed.ok) return fail(`${call.name}: ${parsed.message}`);
    try {
      const out = await tool.run(parsed.args, ctx);
      if (typeof out === 'string') return { toolCallId: call.id, name: call.name, content: out, isError: false };
      return { toolCallId: call.id, name: call.name, ...toolResultOf(out.content), isError: out.isError === true };
    } catch (error) {
      return fail(`${call.name} failed: ${(error as Error).message ?? String(error)}`);
    }
  }
}
