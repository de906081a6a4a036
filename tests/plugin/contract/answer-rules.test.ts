import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAnswer, isCalendarDate, isFiniteDecimal, isRelativePath, type FormShape } from '../../../plugin/contract/answer-rules.js';

const opts = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
const ok = (form: FormShape, selections: string[], customInput = '') => checkAnswer(form, { selections, customInput, cancelled: false });
const problem = (form: FormShape, selections: string[], customInput = '') => {
  const r = ok(form, selections, customInput);
  return r.ok ? 'ok' : r.problem;
};

test('single: exactly one known id; none only with allowCustom and non-blank text', () => {
  const f: FormShape = { mode: 'single', options: opts };
  assert.equal(problem(f, ['a']), 'ok');
  assert.equal(problem(f, []), 'selection_required');
  assert.equal(problem(f, ['a', 'b']), 'single_selection_only');
  assert.equal(problem(f, ['A']), 'unknown_option');
  assert.equal(problem(f, ['a'], 'x'), 'custom_not_allowed');
  const c: FormShape = { ...f, allowCustom: true };
  assert.equal(problem(c, [], 'my own'), 'ok');
  assert.equal(problem(c, [], '   '), 'selection_required');
  assert.equal(problem(c, ['b'], 'note'), 'ok');
});

test('multiple: zero or more distinct ids', () => {
  const f: FormShape = { mode: 'multiple', options: opts };
  assert.equal(problem(f, []), 'ok');
  assert.equal(problem(f, ['a', 'c']), 'ok');
  assert.equal(problem(f, ['a', 'a']), 'duplicate_selection');
  assert.equal(problem(f, ['label A']), 'unknown_option');
});

test('toggle: at least one', () => {
  const f: FormShape = { mode: 'toggle', options: opts };
  assert.equal(problem(f, []), 'selection_required');
  assert.equal(problem(f, ['b']), 'ok');
});

test('text, number, date, directory take customInput and no selections', () => {
  assert.equal(problem({ mode: 'text' }, [], 'hello'), 'ok');
  assert.equal(problem({ mode: 'text' }, [], ' \n'), 'text_required');
  assert.equal(problem({ mode: 'text' }, ['a'], 'x'), 'selections_not_allowed');
  assert.equal(problem({ mode: 'number' }, [], '-3.5'), 'ok');
  assert.equal(problem({ mode: 'number' }, [], '1e309'), 'not_a_number');
  assert.equal(problem({ mode: 'date' }, [], '2026-02-29'), 'not_a_date');
  assert.equal(problem({ mode: 'date' }, [], '2028-02-29'), 'ok');
  assert.equal(problem({ mode: 'directory' }, [], 'src/app'), 'ok');
  assert.equal(problem({ mode: 'directory' }, [], '../etc'), 'not_a_relative_path');
});

test('cancelled is always valid', () => {
  assert.deepEqual(checkAnswer({ mode: 'toggle', options: opts }, { selections: ['zz'], customInput: 'x', cancelled: true }), { ok: true });
});

test('number parsing rejects what Number() would quietly accept', () => {
  for (const s of ['42', '-0.5', '.5', '3.', '1e3', '+7']) assert.ok(isFiniteDecimal(s), s);
  for (const s of ['', ' ', 'NaN', 'Infinity', '0x10', '1e309', '1,5', '--1', '1 2']) assert.ok(!isFiniteDecimal(s), s);
});

test('calendar dates are real dates', () => {
  for (const s of ['2026-12-03', '2000-02-29', '0001-01-01']) assert.ok(isCalendarDate(s), s);
  for (const s of ['2026-13-01', '2026-04-31', '1900-02-29', '0000-01-01', '2026-1-1', '2026-12-03T00:00', '']) {
    assert.ok(!isCalendarDate(s), s);
  }
});

test('relative paths: no absolute, drive, .., NUL', () => {
  for (const s of ['src', 'a/b/c', './x', 'a..b', '.hidden/dir']) assert.ok(isRelativePath(s), s);
  for (const s of ['/etc', '\\share', 'C:\\x', 'c:rel', 'a/../b', '..', 'a\\..\\b', 'a\0b', '~/x', ' ']) {
    assert.ok(!isRelativePath(s), JSON.stringify(s));
  }
});
