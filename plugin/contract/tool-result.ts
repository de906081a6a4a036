/** The ToolResult text written for the original `ask_user` tool call (docs/protocol.md §4). */
import type { Answer, ToolResultContent } from './schema.js';

/** The answer a cancel stands for: its selections and text are ignored (docs/protocol.md §4). */
export const CANCEL_ANSWER: Answer = Object.freeze({
  selections: Object.freeze([]) as unknown as string[],
  customInput: '',
  cancelled: true,
});

/** Exactly `{"selections":[...],"customInput":"...","cancelled":false}`, values as given, keys in order. */
export function answerToolResultText(answer: Answer): string {
  const content: ToolResultContent = answer.cancelled
    ? { ...CANCEL_ANSWER, selections: [] }
    : { selections: [...answer.selections], customInput: answer.customInput, cancelled: false };
  return JSON.stringify(content);
}

/** The cancel content plus the reason, for an interaction closed without an answer. */
export function closedToolResultText(reason: 'expired' | 'superseded'): string {
  const content: ToolResultContent = { ...CANCEL_ANSWER, selections: [], reason };
  return JSON.stringify(content);
}
