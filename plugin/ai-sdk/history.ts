/**
 * Reading and amending an AI SDK history (`ModelMessage[]`): which tool calls still lack a result, and
 * where an ask_user result goes so the history reads in call order. Every change is idempotent by
 * toolCallId: a second writer finds the result present and changes nothing.
 */
import type { ModelMessage, ToolModelMessage, ToolResultPart } from 'ai';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import type { AiRunState } from './ai-run-state.js';
import { base64Bytes, formatBytes } from '../tools/tool-content.js';

/** Tool call ids of one assistant message, in the order the model made them. */
export function callIdsOf(message: ModelMessage): string[] {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  return message.content.flatMap((p) => (p.type === 'tool-call' && !p.providerExecuted ? [p.toolCallId] : []));
}

const resultIdsOf = (message: ModelMessage): string[] =>
  message.role === 'tool' ? message.content.flatMap((p) => (p.type === 'tool-result' ? [p.toolCallId] : [])) : [];

export const hasToolResult = (messages: readonly ModelMessage[], toolCallId: string) =>
  messages.some((m) => resultIdsOf(m).includes(toolCallId));

/** Calls with no result yet; a history the model may be sent has none. */
export function unansweredToolCalls(messages: readonly ModelMessage[]): string[] {
  const answered = new Set(messages.flatMap(resultIdsOf));
  return messages.flatMap(callIdsOf).filter((id) => !answered.has(id));
}

/** A ToolResult of text as the AI SDK takes it: the text is sent to the model exactly as given. */
export const toolResultPart = (toolCallId: string, toolName: string, content: string, isError = false): ToolResultPart => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: isError ? { type: 'error-text', value: content } : { type: 'text', value: content },
});

/** An ask_user ToolResult as the AI SDK takes it. */
export const askUserResultPart = (toolCallId: string, content: string, isError = false): ToolResultPart =>
  toolResultPart(toolCallId, ASK_USER_TOOL_NAME, content, isError);

/** The history with the input of call `toolCallId` replaced (an approval card's edit, §12); unchanged when absent. */
export function withCallArguments(messages: ModelMessage[], toolCallId: string, args: Record<string, unknown>): ModelMessage[] {
  return messages.map((m) =>
    m.role === 'assistant' && typeof m.content !== 'string' && m.content.some((p) => p.type === 'tool-call' && p.toolCallId === toolCallId)
      ? { ...m, content: m.content.map((p) => (p.type === 'tool-call' && p.toolCallId === toolCallId ? { ...p, input: args } : p)) }
      : m,
  );
}

/** The input of call `toolCallId` as the history holds it. */
export function callInputOf(messages: readonly ModelMessage[], toolCallId: string): unknown {
  for (const m of messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const p of m.content) if (p.type === 'tool-call' && p.toolCallId === toolCallId) return p.input;
  }
  return undefined;
}

/** The text a tool_result event carries for a result part: what the model reads. */
export function resultText(part: ToolResultPart): { content: string; isError: boolean } {
  const out = part.output;
  switch (out.type) {
    case 'text':
      return { content: out.value, isError: false };
    case 'error-text':
      return { content: out.value, isError: true };
    case 'json':
      return { content: JSON.stringify(out.value), isError: false };
    case 'error-json':
      return { content: JSON.stringify(out.value), isError: true };
    case 'execution-denied':
      return { content: out.reason ?? 'Tool call execution denied.', isError: true };
    case 'content':
      // Files are described, never echoed: a tool_result event carries no base64.
      return { content: out.value.map(describeContentPart).join('\n'), isError: false };
    default:
      return { content: JSON.stringify((out as { value?: unknown }).value ?? null), isError: false };
  }
}

type ContentPart = Extract<ToolResultPart['output'], { type: 'content' }>['value'][number];

/** A content part of a tool result as text: its text, or a line saying what file was there. */
function describeContentPart(part: ContentPart): string {
  if (part.type === 'text') return part.text;
  const media = ('mediaType' in part ? part.mediaType : undefined) ?? 'unknown type';
  const data = part.type === 'file' && part.data.type === 'data' ? part.data.data : part.type === 'file-data' ? part.data : undefined;
  const kind = media.startsWith('image') ? 'image' : 'file';
  return `[${kind} ${media}${typeof data === 'string' ? `, ${formatBytes(base64Bytes(data))}` : ''}]`;
}

/**
 * Put `part` among the results that follow its assistant message, at the call's position, so the model
 * reads the results in call order. Unchanged when the call already has a result.
 */
export function insertToolResult(messages: ModelMessage[], part: ToolResultPart): ModelMessage[] {
  if (hasToolResult(messages, part.toolCallId)) return messages;
  const at = messages.findIndex((m) => callIdsOf(m).includes(part.toolCallId));
  if (at < 0) return [...messages, { role: 'tool', content: [part] }];
  const order = new Map(callIdsOf(messages[at]!).map((id, i) => [id, i]));
  const next = messages[at + 1];
  if (next?.role !== 'tool') return [...messages.slice(0, at + 1), { role: 'tool', content: [part] }, ...messages.slice(at + 1)];
  const mine = order.get(part.toolCallId)!;
  const content = [...next.content];
  let i = 0;
  while (i < content.length) {
    const p = content[i]!;
    if (p.type === 'tool-result' && (order.get(p.toolCallId) ?? -1) > mine) break;
    i++;
  }
  content.splice(i, 0, part);
  const tool: ToolModelMessage = { ...next, content };
  return [...messages.slice(0, at + 1), tool, ...messages.slice(at + 2)];
}

/** True when the history ends with the complete results of the turn that made `toolCallId`: the model is next. */
export function awaitsModelAfter(state: AiRunState | undefined, toolCallId: string): boolean {
  if (!state || state.status === 'paused') return false;
  const msgs = state.messages;
  if (msgs.at(-1)?.role !== 'tool' || unansweredToolCalls(msgs).length > 0) return false;
  for (let i = msgs.length - 1; i >= 0 && msgs[i]!.role === 'tool'; i--) if (resultIdsOf(msgs[i]!).includes(toolCallId)) return true;
  return false;
}
