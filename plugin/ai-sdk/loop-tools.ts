/**
 * The plugin loop's tools (`LoopTool`: a JSON Schema and `run(args, { sessionId, signal, sse })`) as an AI SDK
 * ToolSet, so a host moving from the loop to this runtime — the demo among them — keeps its tools and
 * what the model reads from them: a string as given, `{ content, isError }` as an error result, a throw
 * as `Error: <name> failed: …`, as the loop's registry words it.
 */
import { jsonSchema, tool, type JSONSchema7, type ToolSet } from 'ai';
import type { LoopTool, ToolOutput } from '../loop/tool-registry.js';
import { errorText } from '../loop/tool-registry.js';
import type { SseSink } from '../core/host.js';

/** Per run, since a LoopTool's `run` is told its session and chat stream: pass the result as `aiSdkRuntime({ tools })`. */
export function fromLoopTools(tools: readonly LoopTool[]): (sessionId: string, sse?: SseSink) => ToolSet {
  return (sessionId, sse) =>
    Object.fromEntries(
      tools.map((t) => [
        t.name,
        tool<Record<string, unknown>, ToolOutput, Record<string, never>>({
          description: t.description,
          inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as JSONSchema7),
          async execute(args, { abortSignal }) {
            try {
              const out = await t.run(args, { sessionId, signal: abortSignal ?? new AbortController().signal, ...(sse ? { sse } : {}) });
              return typeof out === 'string' ? { content: out } : { content: out.content, isError: out.isError === true };
            } catch (error) {
              return { content: errorText(`${t.name} failed: ${(error as Error)?.message ?? String(error)}`), isError: true };
            }
          },
          toModelOutput: ({ output }) =>
            output.isError ? { type: 'error-text', value: output.content } : { type: 'text', value: output.content },
        }),
      ]),
    );
}
