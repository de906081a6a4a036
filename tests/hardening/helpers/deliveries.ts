/**
 * Counting what a model was actually told, from the request bodies the scripted model recorded. A tool
 * message is *delivered* by the request in which it first stands after the last assistant message: the
 * model is being asked to react to it. Every later request repeats it as history, which is not a second
 * delivery; a second request with it after the last assistant message is (the run was continued twice).
 */
import type { ChatRequestBody } from '../../helpers/scripted-model.js';

const toolFor = (m: ChatRequestBody['messages'][number], toolCallId: string) => m.role === 'tool' && m.tool_call_id === toolCallId;

/** Requests that deliver the ToolResult of `toolCallId`. */
export function deliveries(requests: readonly ChatRequestBody[], toolCallId: string): ChatRequestBody[] {
  return requests.filter((body) => {
    const lastAssistant = body.messages.findLastIndex((m) => m.role === 'assistant');
    return body.messages.slice(lastAssistant + 1).some((m) => toolFor(m, toolCallId));
  });
}

/** The most times one request's history holds a tool message for `toolCallId` (a doubled result shows as 2). */
export function maxCopies(requests: readonly ChatRequestBody[], toolCallId: string): number {
  return Math.max(0, ...requests.map((body) => body.messages.filter((m) => toolFor(m, toolCallId)).length));
}

/** The content of the tool message for `toolCallId` in a request, if any. */
export function toolContent(body: ChatRequestBody, toolCallId: string): string | undefined {
  const m = body.messages.find((x) => toolFor(x, toolCallId));
  return typeof m?.content === 'string' ? m.content : undefined;
}

/** The text of the last user message of a request. */
export const lastUserText = (body: ChatRequestBody): string | undefined => {
  const m = body.messages.findLast((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : undefined;
};
