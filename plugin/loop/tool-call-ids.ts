/**
 * Tool call ids as the history needs them: each answered by exactly one tool message. Endpoints send
 * empty ids, one id for two calls of a turn (`call_0` twice), or reuse an id of an earlier round (Kimi's
 * `ask_user:0`, Mistral-style `call_0`); stored as they came, results would pair with the wrong call
 * and an answer would be lost. Such ids are replaced before anything is stored or run.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { freshToolCallId, type AccumulatedToolCall } from './tool-call-accumulator.js';

/** Every tool call id the history already holds, on assistant calls and on tool messages. */
export function historyToolCallIds(messages: readonly ChatCompletionMessageParam[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') ids.add(m.tool_call_id);
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) ids.add(c.id);
  }
  return ids;
}

/** `calls` with every empty, repeated or already used id replaced by a fresh one; order is kept. */
export function withUsableIds(
  calls: readonly AccumulatedToolCall[],
  messages: readonly ChatCompletionMessageParam[],
): AccumulatedToolCall[] {
  const taken = historyToolCallIds(messages);
  return calls.map((call) => {
    let id = call.id.trim() === '' || taken.has(call.id) ? freshToolCallId() : call.id;
    while (taken.has(id)) id = freshToolCallId();
    taken.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
