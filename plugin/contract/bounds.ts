/**
 * Bounds, defaults and placeholder on a question (docs/protocol.md §9.1): the argument fields and the
 * rules that make a combination invalid. The answer side of the same bounds is in `answer-rules.ts`
 * (shared with the browser); a `default` is valid exactly when that check would accept it as an answer.
 */
import { z } from 'zod';
import { checkAnswer, isCalendarDate, type FormShape } from './answer-rules.js';
import { compareDecimal, parseDecimal } from './decimal.js';
import { CHOICE_MODES, LIMITS, isChoiceMode, type Mode } from './limits.js';

const count = (max: number) => z.int().min(0).max(max);

/** The §9.1 argument fields, all optional. */
export const boundsFields = {
  placeholder: z
    .string()
    .max(LIMITS.placeholder)
    .optional()
    .describe('空输入框里的提示，不是答案 / hint shown in an empty field, never a value (text, number, date, directory; the Other box)'),
  default: z
    .union([z.string().max(LIMITS.customInput), z.array(z.string().max(LIMITS.optionId)).max(LIMITS.options)], {
      error: `a string (one option id in single mode, at most ${LIMITS.customInput} characters) or an array of at most ${LIMITS.options} option ids (multiple, toggle)`,
    })
    .optional()
    .describe(
      '预填值，用户仍需提交 / pre-filled value the user still submits: single an option id, multiple/toggle an array of option ids, other modes a string',
    ),
  min: z
    .union([z.number(), z.string()], { error: 'a finite number (number mode) or a date "YYYY-MM-DD" (date mode)' })
    .optional()
    .describe('含边界的下限 / inclusive lower bound: a number (number mode) or YYYY-MM-DD (date mode)'),
  max: z
    .union([z.number(), z.string()], { error: 'a finite number (number mode) or a date "YYYY-MM-DD" (date mode)' })
    .optional()
    .describe('含边界的上限 / inclusive upper bound: a number (number mode) or YYYY-MM-DD (date mode)'),
  step: z.number().positive().optional().describe('number 模式的步长 / number mode: answers are min (or 0) plus a whole multiple of step'),
  minLength: count(LIMITS.maxLength).optional().describe('最少字符数 / fewest characters (text, directory, the Other box)'),
  maxLength: count(LIMITS.maxLength).optional().describe('最多字符数 / most characters (text, directory, the Other box)'),
  minSelections: count(LIMITS.options).optional().describe('最少选择数 / fewest selected ids (multiple, toggle)'),
  maxSelections: count(LIMITS.options).optional().describe('最多选择数 / most selected ids (multiple, toggle)'),
};

export type BoundKey = keyof typeof boundsFields;
export const BOUND_KEYS = Object.keys(boundsFields) as BoundKey[];

const TYPED: readonly Mode[] = ['text', 'number', 'date', 'directory'];

/** Modes each field is for; on a choice mode, `otherBox` fields also need `allowCustom`. */
const MODES_OF: Record<BoundKey, readonly Mode[]> = {
  placeholder: [...TYPED, ...CHOICE_MODES],
  default: [...TYPED, ...CHOICE_MODES],
  min: ['number', 'date'],
  max: ['number', 'date'],
  step: ['number'],
  minLength: ['text', 'directory', ...CHOICE_MODES],
  maxLength: ['text', 'directory', ...CHOICE_MODES],
  minSelections: ['multiple', 'toggle'],
  maxSelections: ['multiple', 'toggle'],
};
const OTHER_BOX: readonly BoundKey[] = ['placeholder', 'minLength', 'maxLength'];

/**
 * Strict tool calling sends every optional field, as `null` when unused: a field that is `null` counts as
 * absent, at the top level, in each question and in each option. Returns a copy without those keys (the
 * same object when there is none), leaving every other value to the schema.
 */
export function dropNullFields(args: Record<string, unknown>): Record<string, unknown> {
  let dropped = false;
  const clean = (o: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (v === null) dropped = true;
      else if ((k === 'questions' || k === 'options') && Array.isArray(v)) out[k] = v.map((x) => (isObject(x) ? clean(x) : x));
      else out[k] = v;
    }
    return out;
  };
  const out = clean(args);
  return dropped ? out : args;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

interface BoundsArgs extends FormShape {
  placeholder?: string;
  default?: string | string[];
}

type Issue = { path: BoundKey; message: string };

/** Every §9.1 problem of a call's arguments, each naming its field; empty when the combination is valid. */
export function boundsIssues(args: BoundsArgs): Issue[] {
  const issues: Issue[] = [];
  const add = (path: BoundKey, message: string) => issues.push({ path, message });
  const { mode } = args;
  const choice = isChoiceMode(mode);
  const given = BOUND_KEYS.filter((k) => args[k] !== undefined);

  for (const k of given) {
    if (!MODES_OF[k].includes(mode)) {
      add(k, `not used by mode "${mode}" (only ${MODES_OF[k].join(', ')})`);
    } else if (choice && OTHER_BOX.includes(k) && args.allowCustom !== true) {
      add(k, `on a choice question it is for the Other box and needs allowCustom: true`);
    }
  }
  if (issues.length > 0) return issues;

  if (mode === 'number') {
    for (const k of ['min', 'max'] as const) {
      if (args[k] !== undefined && typeof args[k] !== 'number') add(k, 'in number mode it is a JSON number');
    }
  }
  if (mode === 'date') {
    for (const k of ['min', 'max'] as const) {
      const v = args[k];
      if (v !== undefined && !(typeof v === 'string' && isCalendarDate(v)))
        add(k, 'in date mode it is a real calendar date as "YYYY-MM-DD"');
    }
  }
  if (issues.length === 0 && args.min !== undefined && args.max !== undefined) {
    const greater =
      typeof args.min === 'number' && typeof args.max === 'number'
        ? compareDecimal(parseDecimal(args.min)!, parseDecimal(args.max)!) > 0
        : String(args.min) > String(args.max);
    if (greater) add('min', `min (${args.min}) is greater than max (${args.max})`);
  }
  if (args.minLength !== undefined && args.maxLength !== undefined && args.minLength > args.maxLength) {
    add('minLength', `minLength (${args.minLength}) is greater than maxLength (${args.maxLength})`);
  }
  const options = args.options?.length ?? 0;
  if (mode === 'toggle' && args.minSelections !== undefined && args.minSelections < 1) {
    add('minSelections', 'on toggle it is at least 1 (a toggle answer turns on at least one option)');
  }
  for (const k of ['minSelections', 'maxSelections'] as const) {
    const v = args[k];
    if (v !== undefined && v > options) add(k, `${k} (${v}) is more than the ${options} options`);
  }
  if (args.minSelections !== undefined && args.maxSelections !== undefined && args.minSelections > args.maxSelections) {
    add('minSelections', `minSelections (${args.minSelections}) is greater than maxSelections (${args.maxSelections})`);
  }

  const d = args.default;
  if (d !== undefined) {
    const wantsArray = mode === 'multiple' || mode === 'toggle';
    if (wantsArray !== Array.isArray(d)) {
      add(
        'default',
        wantsArray
          ? `in ${mode} mode it is an array of option ids`
          : mode === 'single'
            ? 'in single mode it is one option id (a string)'
            : `in ${mode} mode it is a string`,
      );
    } else if (issues.length === 0) {
      // A default must be an answer the server would take: known ids, within every bound.
      const answer = Array.isArray(d)
        ? { selections: d, customInput: '', cancelled: false }
        : mode === 'single'
          ? { selections: [d], customInput: '', cancelled: false }
          : { selections: [], customInput: d, cancelled: false };
      const check = checkAnswer(args, answer);
      if (!check.ok) add('default', `is not a valid answer to this question: ${check.message}`);
    }
  }
  return issues;
}
