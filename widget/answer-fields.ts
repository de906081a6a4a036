/**
 * Pure helpers of the card's templates and of its answer checks (answer-checks.ts): the questions of a
 * request, the §9.1 bounds that fill a message, where a refusal lands, and the time left before a deadline.
 */
import { LIMITS } from '../plugin/contract/limits.js';
import type { AskUserRequest, Question } from './card-request.js';

/** Most characters of typed text the server takes (the contract's `LIMITS.customInput`). */
export const MAX_CUSTOM_INPUT = LIMITS.customInput;

/** The questions of a card: its §9.2 `questions`, else the request as its only question. */
export const questionsOf = (req: AskUserRequest): readonly Question[] => req.questions ?? [req];

export type AnswerField = 'selections' | 'customInput';

/** What fills `{min}`, `{max}`, `{step}` of a message; an absent bound is `undefined`. */
export type BoundValues = Record<string, string | number | undefined>;

/** The form's §9.1 bounds, for the messages: the selection counts, the lengths or the value's bounds. */
export function boundValues(
  kind: 'selections' | 'length' | 'value',
  req: Pick<AskUserRequest, 'min' | 'max' | 'step' | 'minLength' | 'maxLength' | 'minSelections' | 'maxSelections'>,
): BoundValues {
  return kind === 'selections'
    ? { min: req.minSelections, max: req.maxSelections }
    : kind === 'length'
      ? { min: req.minLength, max: req.maxLength }
      : { min: req.min ?? 0, max: req.max, step: req.step };
}

/** Where a refusal (`selections`, `answers[1].customInput`, …) lands: the question's index and its field. */
export function fieldAt(path: string | undefined): { q: number; field: AnswerField } | undefined {
  const m = /^(?:answers\[(\d+)\]\.)?(selections|customInput)$/.exec(path ?? '');
  return m ? { q: Number(m[1] ?? 0), field: m[2] as AnswerField } : undefined;
}

/** Milliseconds until `expiresAt`, or `null` when there is no (parsable) deadline. */
export function remainingMs(expiresAt: string | undefined, now: number): number | null {
  if (!expiresAt) return null;
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) ? null : at - now;
}
