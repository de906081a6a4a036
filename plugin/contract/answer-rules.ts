/**
 * Per-mode answer rules of docs/protocol.md §4, as one pure function shared by the server (which checks the
 * stored form) and the widget (which checks before sending). No dependency: it ships in the browser.
 */
import { isChoiceMode, type Mode } from './limits.js';

export interface FormShape {
  mode: Mode;
  options?: ReadonlyArray<{ id: string }>;
  allowCustom?: boolean;
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
  | 'not_a_relative_path';

export type AnswerCheck =
  | { ok: true }
  | { ok: false; problem: AnswerProblem; field: 'selections' | 'customInput'; message: string };

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

export function checkAnswer(form: FormShape, answer: AnswerShape): AnswerCheck {
  if (answer.cancelled) return { ok: true };
  const { selections, customInput } = answer;

  if (!isChoiceMode(form.mode)) {
    if (selections.length > 0) return fail('selections_not_allowed', 'selections', `mode "${form.mode}" takes no selections`);
    switch (form.mode) {
      case 'text':
        return isBlank(customInput) ? fail('text_required', 'customInput', 'an answer is required') : { ok: true };
      case 'number':
        return isFiniteDecimal(customInput)
          ? { ok: true }
          : fail('not_a_number', 'customInput', 'expected a finite decimal number such as 42 or -3.5');
      case 'date':
        return isCalendarDate(customInput)
          ? { ok: true }
          : fail('not_a_date', 'customInput', 'expected a real calendar date as YYYY-MM-DD');
      case 'directory':
        return isRelativePath(customInput)
          ? { ok: true }
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
  return { ok: true };
}
