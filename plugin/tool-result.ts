/** The ToolResult text written for the original `ask_user` tool call (docs/protocol.md §4). */
import type { Answer, ToolResultContent } from './schema.js';

/** Exactly `{"selections":[...],"customInput":"...","cancelled":false}`, values as given, keys in order. */
export function answerToolResultText(answer: Answer): string {
  const content: ToolResultContent = answer.cancelled
    ? { selections: [], customInput: '', cancelled: true }
    : { selections: [...answer.selections], customInput: answer.customInput, cancelled: false };
  return JSON.stringify(content);
}

/** The cancel content plus the reason, for an interaction closed without an answer. */
export function closedToolResultText(reason: 'expired' | 'superseded'): string {
  const content: ToolResultContent = { selections: [], customInput: '', cancelled: true, reason };
  return JSON.stringify(content);
}
