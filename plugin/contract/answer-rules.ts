/**
 * Per-mode answer rules of docs/protocol.md §4, as one pure function shared by the server (which checks the
 * stored form) and the widget (which checks before sending). No dependency: it ships in the browser.
 */
import { compareDecimal, isOnStep, parseDecimal } from './decimal.js';
import { isChoiceMode, type Mode, type TextFormat } from './limits.js';

export interface FormShape {
  mode: Mode;
  options?: ReadonlyArray<{ id: string }>;
  allowCustom?: boolean;
  /** docs/protocol.md §9.1: a number (number mode) or a `YYYY-MM-DD` date (date mode), inclusive. */
  min?: number | string;
  max?: number | string;
  /** Number mode: answers are `min` (or 0) plus a whole multiple of `step`. */
  step?: number;
  /** Text, directory, and the Other box of a choice question when it is not empty; in code points. */
  minLength?: number;
  maxLength?: number;
  /** Multiple and toggle: how many ids. */
  minSelections?: number;
  maxSelections?: number;
  /** Text: the answer's format (MCP elicitation, §10). */
  format?: TextFormat;
}

export interface AnswerShape {
  selections: readonly string[];
  customInput: string;
  cancelled: boolean;
}

export type AnswerProblem =
  | 'selection_required'
  | 'single_selection_only'
  | 'unknown_option'
  | 'duplicate_selection'
  | 'selections_not_allowed'
  | 'custom_not_allowed'
  | 'text_required'
  | 'not_a_number'
  | 'not_a_date'
  | 'not_a_relative_path'
  // The bounds of docs/protocol.md §9.1.
  | 'below_min'
  | 'above_max'
  | 'off_step'
  | 'under_min_length'
  | 'over_max_length'
  | 'too_few_selections'
  | 'too_many_selections'
  // MCP elicitation (§10).
  | 'bad_format';

export type AnswerCheck = { ok: true } | { ok: false; problem: AnswerProblem; field: 'selections' | 'customInput'; message: string };

/** A question of a §9.2 card, as the rules need it. */
export interface QuestionShape extends FormShape {
  id: string;
  /** @default true */
  required?: boolean;
}

/** A stored form: one question at the top level (`mode` set), or `questions`. */
export type AnyFormShape = Omit<FormShape, 'mode'> & { mode?: Mode; questions?: readonly QuestionShape[]; url?: string };

/** A continue body as the rules need it. */
export interface ContinueShape {
  selections?: readonly string[];
  customInput?: string;
  answers?: ReadonlyArray<{ id: string; selections: readonly string[]; customInput: string }>;
  cancelled: boolean;
}

export type ContinueProblem = AnswerProblem | 'answers_required' | 'answers_not_expected' | 'answers_mismatch';

/** A refusal names the field: `selections`, `customInput`, or for several questions `answers[i].…`. */
export type ContinueCheck = { ok: true } | { ok: false; problem: ContinueProblem; field: string; message: string };

const fail = (problem: AnswerProblem, field: 'selections' | 'customInput', message: string): AnswerCheck => ({
  ok: false,
  problem,
  field,
  message,
});

const isBlank = (s: string) => s.trim().length === 0;

/** A finite decimal number: optional sign, digits with optional fraction, optional exponent. */
export function isFiniteDecimal(s: string): boolean {
  const t = s.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return false;
  return Number.isFinite(Number(t));
}

/** A real calendar date `YYYY-MM-DD` (proleptic Gregorian, years 0001–9999). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/** Relative to the workspace: not absolute, no drive letter, no `..` segment, no NUL, not blank. */
export function isRelativePath(s: string): boolean {
  if (isBlank(s) || s.includes('\0')) return false;
  if (s.startsWith('/') || s.startsWith('\\') || s.startsWith('~')) return false;
  if (/^[A-Za-z]:/.test(s)) return false;
  return !s.split(/[\\/]/).some((seg) => seg === '..');
}

/** Length as JSON Schema's `minLength`/`maxLength` count it: Unicode code points, not UTF-16 units. */
export const codePointLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `minLength`/`maxLength` of the form on a typed text (already known to be non-empty where it matters). */
function checkLength(form: FormShape, text: string): AnswerCheck {
  if (form.minLength === undefined && form.maxLength === undefined) return { ok: true };
  const n = codePointLength(text);
  if (form.minLength !== undefined && n < form.minLength) {
    return fail('under_min_length', 'customInput', `at least ${plural(form.minLength, 'character')}`);
  }
  if (form.maxLength !== undefined && n > form.maxLength) {
    return fail('over_max_length', 'customInput', `at most ${plural(form.maxLength, 'character')}`);
  }
  return { ok: true };
}

const FORMATS: Record<TextFormat, { test(s: string): boolean; says: string }> = {
  email: { test: (s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s), says: 'an email address such as name@example.com' },
  uri: { test: (s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s), says: 'a URI such as https://example.com/page' },
  'date-time': {
    test: (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    says: 'a date and time such as 2026-12-04T15:30:00Z',
  },
};

/** The format an MCP elicitation asked for, on a text answer. */
function checkFormat(format: TextFormat | undefined, text: string): AnswerCheck {
  if (!format || FORMATS[format].test(text.trim())) return { ok: true };
  return fail('bad_format', 'customInput', `expected ${FORMATS[format].says}`);
}

/** `min`, `max` and `step` of a number question, in exact decimal arithmetic. */
function checkNumberBounds(form: FormShape, text: string): AnswerCheck {
  const value = parseDecimal(text);
  if (!value) return fail('not_a_number', 'customInput', 'expected a finite decimal number such as 42 or -3.5');
  const min = typeof form.min === 'number' ? parseDecimal(form.min) : undefined;
  const max = typeof form.max === 'number' ? parseDecimal(form.max) : undefined;
  if (min && compareDecimal(value, min) < 0) return fail('below_min', 'customInput', `expected a number of at least ${form.min}`);
  if (max && compareDecimal(value, max) > 0) return fail('above_max', 'customInput', `expected a number of at most ${form.max}`);
  const step = typeof form.step === 'number' ? parseDecimal(form.step) : undefined;
  if (step && step.sign === 1 && !isOnStep(value, step, min)) {
    return fail('off_step', 'customInput', `expected ${min ? form.min : 0} plus a whole multiple of ${form.step}`);
  }
  return { ok: true };
}

/** `min` and `max` of a date question; `YYYY-MM-DD` sorts as it reads. */
function checkDateBounds(form: FormShape, text: string): AnswerCheck {
  if (typeof form.min === 'string' && text < form.min) return fail('below_min', 'customInput', `expected ${form.min} or later`);
  if (typeof form.max === 'string' && text > form.max) return fail('above_max', 'customInput', `expected ${form.max} or earlier`);
  return { ok: true };
}

/** `minSelections`/`maxSelections` of a multiple or toggle question. */
function checkSelectionCount(form: FormShape, count: number): AnswerCheck {
  if (form.minSelections !== undefined && count < form.minSelections) {
    return fail('too_few_selections', 'selections', `choose at least ${plural(form.minSelections, 'option')}`);
  }
  if (form.maxSelections !== undefined && count > form.maxSelections) {
    return fail('too_many_selections', 'selections', `choose at most ${plural(form.maxSelections, 'option')}`);
  }
  return { ok: true };
}

const first = (...checks: Array<() => AnswerCheck>): AnswerCheck => {
  for (const check of checks) {
    const r = check();
    if (!r.ok) return r;
  }
  return { ok: true };
};

export function checkAnswer(form: FormShape, answer: AnswerShape): AnswerCheck {
  if (answer.cancelled) return { ok: true };
  const { selections, customInput } = answer;

  if (!isChoiceMode(form.mode)) {
    if (selections.length > 0) return fail('selections_not_allowed', 'selections', `mode "${form.mode}" takes no selections`);
    switch (form.mode) {
      case 'text':
        return isBlank(customInput)
          ? fail('text_required', 'customInput', 'an answer is required')
          : first(
              () => checkLength(form, customInput),
              () => checkFormat(form.format, customInput),
            );
      case 'number':
        return isFiniteDecimal(customInput)
          ? checkNumberBounds(form, customInput)
          : fail('not_a_number', 'customInput', 'expected a finite decimal number such as 42 or -3.5');
      case 'date':
        return isCalendarDate(customInput)
          ? checkDateBounds(form, customInput)
          : fail('not_a_date', 'customInput', 'expected a real calendar date as YYYY-MM-DD');
      case 'directory':
        return isRelativePath(customInput)
          ? checkLength(form, customInput)
          : fail('not_a_relative_path', 'customInput', 'expected a path relative to the workspace (no leading /, drive letter or ..)');
    }
  }

  const ids = new Set((form.options ?? []).map((o) => o.id));
  const seen = new Set<string>();
  for (const id of selections) {
    if (!ids.has(id)) return fail('unknown_option', 'selections', `${JSON.stringify(id)} is not an option id of this question`);
    if (seen.has(id)) return fail('duplicate_selection', 'selections', `${JSON.stringify(id)} is selected twice`);
    seen.add(id);
  }
  if (!form.allowCustom && customInput.length > 0) {
    return fail('custom_not_allowed', 'customInput', 'this question takes no free text');
  }
  if (form.mode === 'single') {
    if (selections.length > 1) return fail('single_selection_only', 'selections', 'choose exactly one option');
    if (selections.length === 0 && !(form.allowCustom && !isBlank(customInput))) {
      return fail('selection_required', 'selections', form.allowCustom ? 'choose an option or describe your answer' : 'choose an option');
    }
  }
  if (form.mode === 'toggle' && selections.length === 0) {
    return fail('selection_required', 'selections', 'turn on at least one option');
  }
  return first(
    () => (form.mode === 'single' ? { ok: true } : checkSelectionCount(form, selections.length)),
    // The Other box's bounds hold only for what was typed in it: an empty box is no answer to bound.
    () => (customInput.length > 0 ? checkLength(form, customInput) : { ok: true }),
  );
}

/**
 * A whole continue body against its stored form (§4, §9.1, §9.2): one question takes `selections` and
 * `customInput`; several take `answers`, one per question in order, where an optional question may stay
 * blank (no selection, no text). A cancel is always fine.
 */
export function checkContinue(form: AnyFormShape, body: ContinueShape): ContinueCheck {
  if (body.cancelled) return { ok: true };
  // A link card (§10) is answered by opening the link: the answer carries nothing.
  if (form.url !== undefined) {
    if (body.answers !== undefined)
      return { ok: false, problem: 'answers_not_expected', field: 'answers', message: 'a link card takes no answers' };
    if (body.selections?.length) return fail('selections_not_allowed', 'selections', 'a link card takes no selections');
    if (body.customInput) return fail('custom_not_allowed', 'customInput', 'a link card takes no text');
    return { ok: true };
  }
  if (form.questions === undefined) {
    if (body.answers !== undefined)
      return {
        ok: false,
        problem: 'answers_not_expected',
        field: 'answers',
        message: 'this card asks one question: send selections and customInput',
      };
    return checkAnswer(
      { ...form, mode: form.mode! },
      { selections: body.selections ?? [], customInput: body.customInput ?? '', cancelled: false },
    );
  }
  const { questions } = form;
  const answers = body.answers;
  if (answers === undefined)
    return {
      ok: false,
      problem: 'answers_required',
      field: 'answers',
      message: `this card asks ${plural(questions.length, 'question')}: send answers, one per question`,
    };
  if (answers.length !== questions.length || answers.some((a, i) => a.id !== questions[i]!.id)) {
    return {
      ok: false,
      problem: 'answers_mismatch',
      field: 'answers',
      message: `expected one answer per question, in order: ${questions.map((q) => q.id).join(', ')}`,
    };
  }
  for (const [i, question] of questions.entries()) {
    const a = answers[i]!;
    const blank = a.selections.length === 0 && a.customInput === '';
    if (blank && question.required === false) continue;
    const check = checkAnswer(question, { selections: a.selections, customInput: a.customInput, cancelled: false });
    if (!check.ok) return { ...check, field: `answers[${i}].${check.field}` };
  }
  return { ok: true };
}
