/** The ToolResult text written for the original `ask_user` tool call (docs/protocol.md §4, §9.2). */
import type { Answer, FormToolResultContent, ToolResultContent } from './schema.js';

/** The answer a cancel stands for: its selections and text are ignored (docs/protocol.md §4). */
export const CANCEL_ANSWER: Answer = Object.freeze({
  selections: Object.freeze([]) as unknown as string[],
  customInput: '',
  cancelled: true,
});

/** The same for a card of several questions (§9.2): its answers are ignored too. */
export const FORM_CANCEL_ANSWER: Answer = Object.freeze({ ...CANCEL_ANSWER, answers: Object.freeze([]) as unknown as [] });

/** The same for an approval card (§12): no decisions. */
export const APPROVAL_CANCEL_ANSWER: Answer = Object.freeze({ ...CANCEL_ANSWER, decisions: Object.freeze([]) as unknown as [] });

/** The cancel answer of a form: an approval card, several questions, or one. */
export const cancelAnswerFor = (form: { questions?: unknown; approvals?: unknown }): Answer =>
  form.approvals !== undefined ? APPROVAL_CANCEL_ANSWER : form.questions !== undefined ? FORM_CANCEL_ANSWER : CANCEL_ANSWER;

/**
 * Exactly `{"selections":[...],"customInput":"...","cancelled":false}`, or for several questions
 * `{"answers":[{"id":…,"selections":[…],"customInput":…},…],"cancelled":false}`: values as given, keys in order.
 */
export function answerToolResultText(answer: Answer): string {
  // An approval card (§12): what a RunHost of the host's own gets; the kit's runtimes write each call's own result.
  if (answer.decisions !== undefined) {
    return JSON.stringify({ decisions: answer.cancelled ? [] : answer.decisions, cancelled: answer.cancelled });
  }
  if (answer.answers !== undefined) {
    const content: FormToolResultContent = answer.cancelled
      ? { answers: [], cancelled: true }
      : {
          answers: answer.answers.map(({ id, selections, customInput }) => ({ id, selections: [...selections], customInput })),
          cancelled: false,
        };
    return JSON.stringify(content);
  }
  const content: ToolResultContent = answer.cancelled
    ? { selections: [], customInput: '', cancelled: true }
    : { selections: [...answer.selections], customInput: answer.customInput, cancelled: false };
  return JSON.stringify(content);
}

/** The cancel content plus the reason, for an interaction closed without an answer. */
export function closedToolResultText(reason: 'expired' | 'superseded', several = false): string {
  const content: ToolResultContent | FormToolResultContent = several
    ? { answers: [], cancelled: true, reason }
    : { selections: [], customInput: '', cancelled: true, reason };
  return JSON.stringify(content);
}
