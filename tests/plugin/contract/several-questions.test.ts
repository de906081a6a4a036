/**
 * docs/protocol.md §9.2 in the contract module: the argument rules of several questions, the model's JSON
 * Schema, one check for a whole continue body, and the exact ToolResult texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askUserArgsSchema, continueBodySchema } from '../../../plugin/contract/schema.js';
import { checkContinue } from '../../../plugin/contract/answer-rules.js';
import { answerToolResultText, closedToolResultText, FORM_CANCEL_ANSWER } from '../../../plugin/contract/tool-result.js';
import { askUserParameters, ASK_USER_DESCRIPTIONS } from '../../../plugin/contract/tool-definition.js';

const q = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: `Q ${id}`, mode: 'text', ...extra });
const issues = (args: unknown) => {
  const r = askUserArgsSchema.safeParse(args);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

test('1–4 questions with unique ids; per-question fields never at the top level', () => {
  assert.deepEqual(issues({ title: 'Card', questions: [q('a'), q('b', { mode: 'number', min: 1, max: 2 })] }), []);
  assert.match(issues({ title: 'Card', questions: [] }).join(), /questions: Too small/);
  assert.match(issues({ title: 'Card', questions: ['a', 'b', 'c', 'd', 'e'].map((id) => q(id)) }).join(), /questions: Too big/);
  assert.deepEqual(issues({ title: 'Card', questions: [q('a'), q('a')] }), ['questions.1.id: duplicate question id "a"']);
  assert.match(issues({ title: 'Card', questions: [q('no spaces')] }).join(), /questions\.0\.id/);
  assert.match(issues({ title: 'Card', questions: [q('a'.repeat(65))] }).join(), /questions\.0\.id/);
  assert.match(issues({ title: 'Card', questions: [q('a', { header: 'x'.repeat(25) })] }).join(), /questions\.0\.header/);
  for (const key of ['mode', 'options', 'allowCustom', 'min', 'default', 'placeholder']) {
    const value =
      key === 'mode' ? 'text' : key === 'options' ? [{ id: 'o', label: 'O' }] : key === 'allowCustom' ? true : key === 'min' ? 1 : 'x';
    assert.deepEqual(
      issues({ title: 'Card', [key]: value, questions: [q('a')] }),
      [`${key}: with questions it goes on each question, not at the top level`],
      key,
    );
  }
  assert.deepEqual(issues({ title: 'Card', questions: [q('a', { mode: 'single' })] }), [
    'questions.0.options: mode "single" needs 1..50 options',
  ]);
  assert.deepEqual(issues({ title: 'Card', questions: [q('a', { mode: 'number', min: 3, max: 2 })] }), [
    'questions.0.min: min (3) is greater than max (2)',
  ]);
  assert.deepEqual(issues({ title: 'No mode, no questions' }), ['mode: required (or give questions)']);
  assert.deepEqual(issues({ title: 'One question', mode: 'text' }), [], 'the seed shape stays valid');
});

test("the model's JSON Schema offers questions with their fields", () => {
  const schema = askUserParameters() as { properties: Record<string, any>; required?: string[] };
  assert.deepEqual(schema.required, ['title'], 'mode is not required once questions may replace it');
  const item = schema.properties.questions.items;
  assert.equal(schema.properties.questions.maxItems, 4);
  for (const key of ['id', 'header', 'title', 'mode', 'options', 'required', 'min', 'default']) assert.ok(item.properties[key], key);
  assert.deepEqual(item.required.sort(), ['id', 'mode', 'title']);
  assert.ok(ASK_USER_DESCRIPTIONS.zh.includes('questions') && ASK_USER_DESCRIPTIONS.en.includes('questions'), 'the descriptions say when');
});

test('a continue body answers one question or several, never both', () => {
  const base = { sessionId: 's', requestId: 'ask_aaaaaaaaaaaaaaaaaaaaaa', cancelled: false };
  assert.ok(continueBodySchema.safeParse({ ...base, answers: [{ id: 'a', selections: [], customInput: 'x' }] }).success);
  assert.ok(continueBodySchema.safeParse({ ...base, selections: [], customInput: '' }).success);
  assert.ok(!continueBodySchema.safeParse({ ...base, selections: [], customInput: '', answers: [] }).success);
  assert.ok(!continueBodySchema.safeParse({ ...base }).success);
  const long = continueBodySchema.safeParse({ ...base, answers: [{ id: 'a', selections: [], customInput: 'x'.repeat(8001) }] });
  assert.equal(long.success ? '' : long.error.issues[0]!.path.join('.'), 'answers.0.customInput');
});

test('checkContinue names the question of the first wrong answer', () => {
  const form = {
    questions: [
      { id: 'pick', mode: 'single' as const, options: [{ id: 'x' }, { id: 'y' }], required: true },
      { id: 'n', mode: 'number' as const, max: 5, required: true },
      { id: 'note', mode: 'text' as const, required: false },
    ],
  };
  const a = (pick: string[], n: string, note = '') => ({
    cancelled: false,
    answers: [
      { id: 'pick', selections: pick, customInput: '' },
      { id: 'n', selections: [], customInput: n },
      { id: 'note', selections: [], customInput: note },
    ],
  });
  assert.deepEqual(checkContinue(form, a(['x'], '3')), { ok: true });
  assert.deepEqual(checkContinue(form, a(['x'], '6')), {
    ok: false,
    problem: 'above_max',
    field: 'answers[1].customInput',
    message: 'expected a number of at most 5',
  });
  assert.equal((checkContinue(form, a([], '3')) as { field: string }).field, 'answers[0].selections');
  assert.equal(
    (checkContinue(form, { cancelled: false, answers: a(['x'], '3').answers.reverse() }) as { problem: string }).problem,
    'answers_mismatch',
  );
  assert.equal(
    (checkContinue(form, { cancelled: false, selections: ['x'], customInput: '' }) as { problem: string }).problem,
    'answers_required',
  );
  assert.equal((checkContinue({ mode: 'text' }, a(['x'], '3')) as { problem: string }).problem, 'answers_not_expected');
  assert.deepEqual(checkContinue(form, { cancelled: true, answers: [] }), { ok: true });
});

test('ToolResult texts of several questions, keys in contract order', () => {
  assert.equal(
    answerToolResultText({
      selections: [],
      customInput: '',
      cancelled: false,
      answers: [{ id: 'a', selections: ['x'], customInput: 'é "q"' }],
    }),
    '{"answers":[{"id":"a","selections":["x"],"customInput":"é \\"q\\""}],"cancelled":false}',
  );
  assert.equal(answerToolResultText(FORM_CANCEL_ANSWER), '{"answers":[],"cancelled":true}');
  assert.equal(closedToolResultText('superseded', true), '{"answers":[],"cancelled":true,"reason":"superseded"}');
});
