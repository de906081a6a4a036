/**
 * The plugin loop's tools (`LoopTool`: a JSON Schema and `run(args, { sessionId, signal, sse })`) as an AI SDK
 * ToolSet, so a host moving from the loop to this runtime — the demo among them — keeps its tools and
 * what the model reads from them: a string as given, `{ content, isError }` as an error result, a throw
 * as `Error: <name> failed: …`, as the loop's registry words it. Content parts (an MCP tool's images, …)
 * go to the model as AI SDK content parts, or described in text for a provider that cannot take them.
 */
import { jsonSchema, tool, type JSONSchema7, type ToolResultPart, type ToolSet } from 'ai';
import { errorText, type LoopTool } from '../tools/loop-tool.js';
import { describePart, toolResultOf, type ToolContentPart } from '../tools/tool-content.js';
import type { SseSink } from '../core/host.js';
import { keepPolicy } from './approval-tools.js';

export interface FromLoopToolsOptions {
  /**
   * How a result's images and files reach the model: `'parts'` as AI SDK content parts (images, PDFs) for
   * providers that take them in tool results (OpenAI Responses, Anthropic, Google); `'text'` as one line
   * describing each (`[image image/png, 1.2 KB]`), for Chat Completions providers, which would otherwise
   * send the parts as JSON text, base64 and all. Audio, other files and resource links are always text.
   * @default 'parts'
   */
  media?: 'parts' | 'text';
}

/** What a loop tool's run gives the AI SDK: the text, and the parts when there is more than text. */
interface LoopToolResult {
  content: string;
  isError?: boolean;
  parts?: ToolContentPart[];
}

type ContentPart = Extract<ToolResultPart['output'], { type: 'content' }>['value'][number];

/** One part as the AI SDK carries it in a tool result: images and PDFs as file data, the rest as text. */
function aiPart(part: ToolContentPart): ContentPart {
  if (part.type === 'image' && part.data) return { type: 'file', data: { type: 'data', data: part.data }, mediaType: part.mimeType };
  if (part.type === 'resource' && part.blob && (part.mimeType?.startsWith('image/') || part.mimeType === 'application/pdf')) {
    const filename = decodeURIComponent(part.uri.split(/[/\\]/).pop() || '') || undefined;
    return { type: 'file', data: { type: 'data', data: part.blob }, mediaType: part.mimeType, ...(filename ? { filename } : {}) };
  }
  return { type: 'text', text: describePart(part) };
}

/** Per run, since a LoopTool's `run` is told its session and chat stream: pass the result as `aiSdkRuntime({ tools })`. */
export function fromLoopTools(
  tools: readonly LoopTool[] | ((sessionId: string) => readonly LoopTool[]),
  options: FromLoopToolsOptions = {},
): (sessionId: string, sse?: SseSink) => ToolSet {
  const { media = 'parts' } = options;
  // A function is read per run, so a live list (MCP servers' tools after list_changed) is current.
  return (sessionId, sse) =>
    Object.fromEntries(
      (typeof tools === 'function' ? tools(sessionId) : tools).map((t) => [
        t.name,
        // The LoopTool's approval fields (§12) go with it: the AI SDK runtime reads them (approval-tools.ts).
        keepPolicy(
          tool<Record<string, unknown>, LoopToolResult, Record<string, never>>({
            description: t.description,
            inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as JSONSchema7),
            async execute(args, { abortSignal }) {
              try {
                const out = await t.run(args, { sessionId, signal: abortSignal ?? new AbortController().signal, ...(sse ? { sse } : {}) });
                return typeof out === 'string' ? { content: out } : { ...toolResultOf(out.content), isError: out.isError === true };
              } catch (error) {
                return { content: errorText(`${t.name} failed: ${(error as Error)?.message ?? String(error)}`), isError: true };
              }
            },
            toModelOutput: ({ output }) =>
              output.isError
                ? { type: 'error-text', value: output.content }
                : output.parts && media === 'parts'
                  ? { type: 'content', value: output.parts.map(aiPart) }
                  : { type: 'text', value: output.content },
          }),
          t,
        ),
      ]),
    );
}
