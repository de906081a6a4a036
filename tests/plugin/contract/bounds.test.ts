/**
 * docs/protocol.md §9.1 on one question: which argument combinations are valid (each refusal names its
 * field), and how `checkAnswer` holds an answer to the stored bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { askUserArgsSchema } from '../../../plugin/contract/schema.js';
import { checkAnswer, codePointLength, type FormShape } from '../../../plugin/contract/answer-rules.js';
import { dropNullFields } from '../../../plugin/contract/bounds.js';
import { askUserParameters } from '../../../plugin/contract/tool-definition.js';

const OPTS = [
  { id: 'a', label: 'A' },
  { id: 'b', label: 'B' },
  { id: 'c', label: 'C' },
];

/** The problems of a call, as `path: message`; `[]` when valid. */
const problems = (args: Record<string, unknown>): string[] => {
  const r = askUserArgsSchema.safeParse(args);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const valid = (args: Record<string, unknown>) => assert.deepEqual(problems(args), [], JSON.stringify(args));
const invalid = (args: Record<string, unknown>, field: string, message?: RegExp) => {
  const p = problems(args);
  assert.ok(p.length > 0, `refused: ${JSON.stringify(args)}`);
  assert.ok(
    p.some((line) => line.startsWith(`${field}: `) && (!message || message.test(line))),
    `${JSON.stringify(args)} names ${field}: ${p.join(' | ')}`,
  );
};

const answer = (form: FormShape, customInput: string, selections: string[] = []) => {
  const r = checkAnswer(form, { selections, customInput, cancelled: false });
  return r.ok ? 'ok' : `${r.field}/${r.problem}`;
};

// ------------------------------------------------------------------------------------- arguments

test('every §9.1 field is accepted on its own modes', () => {
  valid({ title: 'Q', mode: 'text', placeholder: 'e.g. Ada', default: 'Ada', minLength: 2, maxLength: 40 });
  valid({ title: 'Q', mode: 'number', placeholder: '0–5', default: '2.5', min: 0, max: 5, step: 0.5 });
  valid({ title: 'Q', mode: 'number', min: -1.25, max: 1e3 });
  valid({ title: 'Q', mode: 'date', placeholder: 'YYYY-MM-DD', default: '2026-12-24', min: '2026-12-01', max: '2026-12-31' });
  valid({ title: 'Q', mode: 'directory', placeholder: 'src/app', default: 'src', minLength: 1, maxLength: 8000 });
  valid({ title: 'Q', mode: 'single', options: OPTS, default: 'b' });
  valid({ title: 'Q', mode: 'single', options: OPTS, allowCustom: true, placeholder: 'Other…', minLength: 3, maxLength: 10 });
  valid({ title: 'Q', mode: 'multiple', options: OPTS, default: ['a', 'c'], minSelections: 1, maxSelections: 2 });
  valid({ title: 'Q', mode: 'multiple', options: OPTS, default: [], minSelections: 0, maxSelections: 3 });
  valid({ title: 'Q', mode: 'toggle', options: OPTS, default: ['a'], minSelections: 1, maxSelections: 1 });
  valid({ title: 'Q', mode: 'number', min: 5, max: 5 });
});

test('a field on a mode that has no use for it is refused, naming the field', () => {
  invalid({ title: 'Q', mode: 'text', min: 1 }, 'min', /not used by mode "text"/);
  invalid({ title: 'Q', mode: 'date', step: 1 }, 'step');
  invalid({ title: 'Q', mode: 'number', minLength: 1 }, 'minLength');
  invalid({ title: 'Q', mode: 'date', maxLength: 10 }, 'maxLength');
  invalid({ title: 'Q', mode: 'text', minSelections: 1 }, 'minSelections');
  invalid({ title: 'Q', mode: 'single', options: OPTS, maxSelections: 1 }, 'maxSelections');
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, min: 1 }, 'min');
  invalid({ title: 'Q', mode: 'toggle', options: OPTS, step: 1 }, 'step');
});

test("placeholder, minLength and maxLength on a choice question need allowCustom (they are the Other box's)", () => {
  for (const field of ['placeholder', 'minLength', 'maxLength']) {
    const value = field === 'placeholder' ? 'Other…' : 2;
    invalid({ title: 'Q', mode: 'multiple', options: OPTS, [field]: value }, field, /needs allowCustom: true/);
    invalid({ title: 'Q', mode: 'single', options: OPTS, allowCustom: false, [field]: value }, field, /allowCustom/);
    valid({ title: 'Q', mode: 'toggle', options: OPTS, allowCustom: true, [field]: value });
  }
});

test('types and sizes of each field', () => {
  invalid({ title: 'Q', mode: 'text', placeholder: 'x'.repeat(101) }, 'placeholder');
  valid({ title: 'Q', mode: 'text', placeholder: 'x'.repeat(100) });
  invalid({ title: 'Q', mode: 'number', min: '1' }, 'min', /JSON number/);
  invalid({ title: 'Q', mode: 'number', max: '5' }, 'max', /JSON number/);
  invalid({ title: 'Q', mode: 'date', min: 20260101 }, 'min', /YYYY-MM-DD/);
  invalid({ title: 'Q', mode: 'date', max: '2026-02-30' }, 'max', /calendar date/);
  invalid({ title: 'Q', mode: 'number', step: 0 }, 'step');
  invalid({ title: 'Q', mode: 'number', step: -0.5 }, 'step');
  invalid({ title: 'Q', mode: 'number', step: '0.1' }, 'step');
  invalid({ title: 'Q', mode: 'text', maxLength: 8001 }, 'maxLength');
  invalid({ title: 'Q', mode: 'text', minLength: -1 }, 'minLength');
  invalid({ title: 'Q', mode: 'text', minLength: 1.5 }, 'minLength');
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, minSelections: 0.5 }, 'minSelections');
  invalid({ title: 'Q', mode: 'text', default: 42 }, 'default', /a string/);
  invalid({ title: 'Q', mode: 'number', default: 42 }, 'default', /a string/);
  invalid({ title: 'Q', mode: 'number', min: true }, 'min', /finite number/);
  invalid({ title: 'Q', mode: 'single', options: OPTS, default: ['a'] }, 'default', /one option id/);
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, default: 'a' }, 'default', /array of option ids/);
  invalid({ title: 'Q', mode: 'toggle', options: OPTS, default: 'a' }, 'default', /array/);
});

test('min > max, minLength > maxLength, minSelections > maxSelections or more than the options', () => {
  invalid({ title: 'Q', mode: 'number', min: 6, max: 5 }, 'min', /greater than max/);
  invalid({ title: 'Q', mode: 'number', min: 0.30000000000000004, max: 0.3 }, 'min', /greater than max/);
  invalid({ title: 'Q', mode: 'date', min: '2026-12-31', max: '2026-12-01' }, 'min', /greater than max/);
  invalid({ title: 'Q', mode: 'text', minLength: 5, maxLength: 4 }, 'minLength', /greater than maxLength/);
  invalid(
    { title: 'Q', mode: 'multiple', options: OPTS, minSelections: 3, maxSelections: 2 },
    'minSelections',
    /greater than maxSelections/,
  );
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, minSelections: 4 }, 'minSelections', /more than the 3 options/);
  invalid({ title: 'Q', mode: 'toggle', options: OPTS, maxSelections: 4 }, 'maxSelections', /more than the 3 options/);
  invalid({ title: 'Q', mode: 'toggle', options: OPTS, minSelections: 0 }, 'minSelections', /at least 1/);
});

test('a default that names an unknown id or breaks a bound is refused', () => {
  invalid({ title: 'Q', mode: 'single', options: OPTS, default: 'z' }, 'default', /not an option id/);
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, default: ['a', 'z'] }, 'default', /not an option id/);
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, default: ['a', 'a'] }, 'default', /twice/);
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, default: ['a', 'b', 'c'], maxSelections: 2 }, 'default', /at most 2 options/);
  invalid({ title: 'Q', mode: 'multiple', options: OPTS, default: [], minSelections: 1 }, 'default', /at least 1 option/);
  invalid({ title: 'Q', mode: 'toggle', options: OPTS, default: [] }, 'default');
  invalid({ title: 'Q', mode: 'number', default: '7', max: 5 }, 'default', /at most 5/);
  invalid({ title: 'Q', mode: 'number', default: '-1', min: 0 }, 'default', /at least 0/);
  invalid({ title: 'Q', mode: 'number', default: '0.35', step: 0.1 }, 'default', /multiple of 0.1/);
  invalid({ title: 'Q', mode: 'number', default: 'ten' }, 'default', /finite decimal/);
  invalid({ title: 'Q', mode: 'date', default: '2027-01-01', max: '2026-12-31' }, 'default', /2026-12-31 or earlier/);
  invalid({ title: 'Q', mode: 'date', default: 'tomorrow' }, 'default');
  invalid({ title: 'Q', mode: 'text', default: 'abc', maxLength: 2 }, 'default', /at most 2 characters/);
  invalid({ title: 'Q', mode: 'text', default: 'a', minLength: 2 }, 'default', /at least 2 characters/);
  invalid({ title: 'Q', mode: 'directory', default: '../up' }, 'default', /relative/);
  valid({ title: 'Q', mode: 'number', default: '0.3', step: 0.1 });
});

test('a refused call names each broken field', () => {
  const p = problems({ title: 'Q', mode: 'number', min: '1', max: '5' });
  assert.ok(
    p.some((l) => l.startsWith('min: ')),
    p.join(' | '),
  );
  assert.ok(
    p.some((l) => l.startsWith('max: ')),
    p.join(' | '),
  );
  const q = problems({ title: 'Q', mode: 'multiple', options: OPTS, minSelections: 3, maxSelections: 2, min: 1 });
  assert.deepEqual(
    q.map((l) => l.split(':')[0]),
    ['min'],
    'a field on the wrong mode is reported before the values are compared',
  );
});

test('null counts as absent for a §9.1 field (strict tool calling sends unused fields as null)', () => {
  const args = {
    title: 'Q',
    mode: 'text',
    placeholder: null,
    default: null,
    min: null,
    max: null,
    step: null,
    minLength: null,
    maxLength: null,
    minSelections: null,
    maxSelections: null,
  };
  const cleaned = dropNullFields(args);
  assert.deepEqual(cleaned, { title: 'Q', mode: 'text' });
  valid(cleaned);
  const untouched = { title: 'Q', mode: 'text' };
  assert.equal(dropNullFields(untouched), untouched, 'nothing to drop: the same object');
});

test('the seed shape is unchanged: a call without §9.1 fields parses to exactly what it was', () => {
  const seed = { title: 'Q', description: 'd', mode: 'single', options: OPTS, allowCustom: true, submitLabel: 'Go' };
  assert.deepEqual(askUserArgsSchema.parse(seed), seed);
});

test('the JSON Schema offers the new fields with their types and limits, still requiring only title (mode, or questions, per §9.2)', () => {
  const p = askUserParameters() as { required: string[]; properties: Record<string, Record<string, unknown>> };
  assert.deepEqual([...p.required].sort(), ['title']);
  assert.equal(p.properties.placeholder?.maxLength, 100);
  assert.deepEqual(p.properties.step?.type, 'number');
  assert.equal(p.properties.maxLength?.maximum, 8000);
  assert.equal(p.properties.minSelections?.type, 'integer');
  const anyOf = (k: string) => {
    const prop = p.properties[k]!;
    return (Array.isArray(prop.type) ? (prop.type as string[]) : (prop.anyOf as Array<{ type: string }>).map((s) => s.type)).sort();
  };
  assert.deepEqual(anyOf('default'), ['array', 'string']);
  assert.deepEqual(anyOf('min'), ['number', 'string']);
  for (const k of ['placeholder', 'default', 'min', 'max', 'step', 'minLength', 'maxLength', 'minSelections', 'maxSelections']) {
    assert.ok(typeof p.properties[k]?.description === 'string', `${k} is described for the model`);
  }
});

// ---------------------------------------------------------------------------------------- answers

test('number: min and max inclusive, compared exactly', () => {
  const f: FormShape = { mode: 'number', min: 0, max: 5 };
  assert.equal(answer(f, '5'), 'ok');
  assert.equal(answer(f, '0'), 'ok');
  assert.equal(answer(f, '7'), 'customInput/above_max');
  assert.equal(answer(f, '5.0000000000000001'), 'customInput/above_max');
  assert.equal(answer(f, '-0.0000001'), 'customInput/below_min');
  assert.equal(answer(f, '5e0'), 'ok');
  assert.equal(answer(f, 'x'), 'customInput/not_a_number', 'the §4 rule comes first');
});

test('number: step from min, or from 0 with negative multiples, in decimal', () => {
  assert.equal(answer({ mode: 'number', step: 0.1 }, '0.3'), 'ok');
  assert.equal(answer({ mode: 'number', step: 0.1 }, '-0.3'), 'ok');
  assert.equal(answer({ mode: 'number', step: 0.1 }, '0.35'), 'customInput/off_step');
  assert.equal(answer({ mode: 'number', min: 0.5, step: 1 }, '2.5'), 'ok');
  assert.equal(answer({ mode: 'number', min: 0.5, step: 1 }, '2'), 'customInput/off_step');
  assert.equal(answer({ mode: 'number', min: 1, max: 10, step: 3 }, '10'), 'ok');
  assert.equal(answer({ mode: 'number', min: 1, max: 10, step: 3 }, '-2'), 'customInput/below_min', 'with min, no negative multiples');
});

test('property: with step 0.1 every k/10 is on the grid and every k/100 that is not a tenth is off it', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), (k) => {
      const tenth = `${k < 0 ? '-' : ''}${Math.floor(Math.abs(k) / 10)}.${Math.abs(k) % 10}`;
      assert.equal(answer({ mode: 'number', step: 0.1 }, tenth), 'ok', tenth);
      if (k % 10 !== 0)
        assert.equal(answer({ mode: 'number', step: 0.1 }, `${(k / 1000).toFixed(3).slice(0, -1)}5`), 'customInput/off_step');
    }),
    { numRuns: 300 },
  );
});

test('date: min and max inclusive', () => {
  const f: FormShape = { mode: 'date', min: '2026-12-01', max: '2026-12-31' };
  assert.equal(answer(f, '2026-12-01'), 'ok');
  assert.equal(answer(f, '2026-12-31'), 'ok');
  assert.equal(answer(f, '2026-11-30'), 'customInput/below_min');
  assert.equal(answer(f, '2027-01-01'), 'customInput/above_max');
});

test('text and directory: lengths in code points, as JSON Schema counts', () => {
  const f: FormShape = { mode: 'text', minLength: 2, maxLength: 3 };
  assert.equal(answer(f, '😀😀😀'), 'ok', 'three code points, six UTF-16 units');
  assert.equal(answer(f, '😀😀😀😀'), 'customInput/over_max_length');
  assert.equal(answer(f, '😀'), 'customInput/under_min_length', 'one code point, two UTF-16 units');
  assert.equal(answer(f, '   '), 'customInput/text_required', 'blank is still refused first');
  assert.equal(answer({ mode: 'directory', maxLength: 5 }, 'src/app'), 'customInput/over_max_length');
  assert.equal(answer({ mode: 'directory', minLength: 3 }, 'src'), 'ok');
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => {
      assert.equal(codePointLength(s), [...s].length);
    }),
  );
});

test('the Other box: its bounds hold only when it is not empty', () => {
  const f: FormShape = { mode: 'multiple', options: [{ id: 'a' }, { id: 'b' }], allowCustom: true, minLength: 3, maxLength: 5 };
  assert.equal(answer(f, '', ['a']), 'ok', 'an empty box is not bounded');
  assert.equal(answer(f, 'ab', ['a']), 'customInput/under_min_length');
  assert.equal(answer(f, 'abcdef', ['a']), 'customInput/over_max_length');
  assert.equal(answer(f, 'abc', []), 'ok');
  const single: FormShape = { mode: 'single', options: [{ id: 'a' }], allowCustom: true, maxLength: 2 };
  assert.equal(answer(single, 'abc', []), 'customInput/over_max_length');
  assert.equal(answer(single, '', ['a']), 'ok');
});

test('multiple and toggle: minSelections and maxSelections', () => {
  const opts = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
  const m: FormShape = { mode: 'multiple', options: opts, minSelections: 1, maxSelections: 2 };
  assert.equal(answer(m, '', []), 'selections/too_few_selections');
  assert.equal(answer(m, '', ['a']), 'ok');
  assert.equal(answer(m, '', ['a', 'b']), 'ok');
  assert.equal(answer(m, '', ['a', 'b', 'c']), 'selections/too_many_selections');
  const t: FormShape = { mode: 'toggle', options: opts, minSelections: 2 };
  assert.equal(answer(t, '', ['a']), 'selections/too_few_selections');
  assert.equal(answer(t, '', []), 'selections/selection_required');
  assert.equal(answer(t, '', ['a', 'c']), 'ok');
});

test('a cancel ignores every bound', () => {
  const f: FormShape = { mode: 'number', min: 0, max: 5, step: 1 };
  assert.deepEqual(checkAnswer(f, { selections: [], customInput: '7.5', cancelled: true }), { ok: true });
});
