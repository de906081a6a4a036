/**
 * The answer checked with the server's own rules (plugin/contract/answer-rules.ts) before it is sent, and
 * which sentence of the card says what is wrong.
 */
import { checkAnswer, checkContinue, type AnswerProblem, type AnyFormShape, type FormShape } from '../plugin/contract/answer-rules.js';
import type { Answer } from '../plugin/contract/schema.js';
import type { InvalidAnswer } from './card-state.js';
import { MAX_CUSTOM_INPUT, boundValues, fieldAt, questionsOf, type AnswerField, type BoundValues } from './answer-fields.js';
import type { AskUserRequest, Question } from './read-answer.js';
import type { AskUserStrings } from './strings.js';

export type AnswerValidation =
  | { ok: true }
  | {
      ok: false;
      field: AnswerField;
      problem: AnswerProblem | 'too_long';
      key: keyof AskUserStrings;
      /** What fills the sentence's `{min}`, `{max}`, `{step}`: the bound that was crossed. */
      values?: BoundValues;
    };

/** Where a refused answer is wrong and which sentence says why; `undefined` when the rules take it. */
export const invalidOf = (check: AnswerValidation): { field: AnswerField; key: keyof AskUserStrings; values?: BoundValues } | undefined =>
  check.ok ? undefined : { field: check.field, key: check.key, values: check.values };

/** The sentence of each problem whose wording does not depend on the mode. */
const PROBLEM_KEYS: Partial<Record<AnswerProblem | 'too_long', keyof AskUserStrings>> = {
  single_selection_only: 'chooseOnlyOne',
  unknown_option: 'unknownOption',
  duplicate_selection: 'unknownOption',
  selections_not_allowed: 'unknownOption',
  custom_not_allowed: 'customNotAllowed',
  text_required: 'textRequired',
  not_a_number: 'notANumber',
  not_a_date: 'notADate',
  not_a_relative_path: 'notARelativePath',
  too_long: 'tooLong',
  off_step: 'offStep',
  under_min_length: 'tooShort',
  over_max_length: 'overMaxLength',
  too_few_selections: 'tooFewSelections',
  too_many_selections: 'tooManySelections',
};

/**
 * Which sentence of {@link AskUserStrings} explains a problem; `single` and `toggle` word "nothing chosen"
 * their own way, dates word their bounds as earlier/later. A problem only the whole body has (§9.2) gets
 * the server's general refusal.
 */
export function problemKey(problem: string, request: Pick<Question, 'mode' | 'allowCustom'>): keyof AskUserStrings {
  const date = request.mode === 'date';
  return problem === 'selection_required'
    ? request.mode === 'toggle'
      ? 'toggleAtLeastOne'
      : request.allowCustom
        ? 'chooseOneOrDescribe'
        : 'chooseOne'
    : problem === 'below_min'
      ? date
        ? 'dateMin'
        : 'belowMin'
      : problem === 'above_max'
        ? date
          ? 'dateMax'
          : 'aboveMax'
        : (PROBLEM_KEYS[problem as AnswerProblem] ?? 'errorInvalidAnswer');
}

/**
 * The server's shape rules (plugin/contract/answer-rules.ts) with the stored form's §9.1 bounds, plus the
 * body's length limit, so nothing leaves the browser that `POST /api/chat/continue` would reject with 400 or 422.
 */
export function validateAnswer(request: Omit<Question, 'title'>, answer: Answer): AnswerValidation {
  if (answer.cancelled) return { ok: true };
  if (answer.customInput.length > MAX_CUSTOM_INPUT) {
    return { ok: false, field: 'customInput', problem: 'too_long', key: 'tooLong' };
  }
  const check = checkAnswer(request as FormShape, answer);
  if (check.ok) return check;
  const p = check.problem;
  const kind = p.endsWith('selections') ? 'selections' : p.endsWith('length') ? 'length' : 'value';
  return {
    ok: false,
    field: check.field,
    problem: p,
    key: problemKey(p, request),
    values: boundValues(kind, request),
  };
}

/**
 * What is wrong with each question's answer, by index (empty when nothing is). Every question is checked,
 * so all problems show at once; an optional question left blank is fine. The server's whole-body rule
 * (`checkContinue`) has the last word: a refusal the per-question checks missed lands on the question it names.
 */
export function checkForm(req: AskUserRequest, answer: Answer): Array<InvalidAnswer | undefined> {
  const qs = questionsOf(req);
  const out = qs.map((q, i) => {
    const a = answer.answers?.[i] ?? answer;
    return q.required === false && !a.selections.length && !a.customInput
      ? undefined
      : invalidOf(validateAnswer(q, { ...a, cancelled: false }));
  });
  const whole = out.some(Boolean) ? undefined : checkContinue(req as AnyFormShape, answer);
  if (whole && !whole.ok) {
    const at = fieldAt(whole.field) ?? { q: 0, field: 'selections' };
    out[at.q] = { field: at.field, key: problemKey(whole.problem, qs[at.q] ?? req) };
  }
  return out;
}
