/**
 * docs/protocol.md §9.2 in the contract module: the argument rules of several questions, the model's JSON
 * Schema, one check for a whole continue body, and the exact ToolResult texts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askUserArgsSchema, continueBodySchema } from '../../../plugin/contract/schema.js';
import { checkContinue } from '../../../plugin/contract/answer-rules.js';
import { answerToolResultText, closedToolResultText, FORM_CANCEL_ANSWER } from '../../../plugin/contract/tool-result.js';
import {
  askUserParameters,
  askUserResponsesTool,
  strictParameters,
  ASK_USER_DESCRIPTIONS,
} from '../../../plugin/contract/tool-definition.js';
import { parseAskUserArguments } from '../../../plugin/core/coordinator.js';
import { BOUND_KEYS } from '../../../plugin/contract/bounds.js';

/** Every §9.1 field as a strict model sends it when unused. */
const NULL_BOUNDS = Object.fromEntries(BOUND_KEYS.map((k) => [k, null]));

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

/** The rules of strict tool calling a schema must follow, as OpenAI documents them for `strict: true`. */
function strictProblems(node: Record<string, any>, path = '$'): string[] {
  const problems: string[] = [];
  for (const key of ['minLength', 'maxLength', 'default', 'oneOf', 'allOf', 'not', '$ref']) {
    if (key in node) problems.push(`${path}: ${key} is not allowed`);
  }
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'))) {
    if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
    const keys = Object.keys(node.properties ?? {});
    if (JSON.stringify([...(node.required ?? [])].sort()) !== JSON.stringify([...keys].sort()))
      problems.push(`${path}: every property must be required`);
    for (const k of keys) problems.push(...strictProblems(node.properties[k], `${path}.${k}`));
  }
  if (node.items) problems.push(...strictProblems(node.items, `${path}[]`));
  for (const [i, n] of (node.anyOf ?? []).entries()) problems.push(...strictProblems(n, `${path}|${i}`));
  return problems;
}

test('the strict variant follows strict mode, and a strict call (every optional field null) means the same as the plain one', () => {
  const strict = strictParameters();
  assert.deepEqual(strictProblems(strict), []);
  assert.equal(strict.type, 'object', 'the root is an object, not a union');
  assert.deepEqual(strictProblems(askUserParameters()).length > 0, true, 'the plain schema is not strict: the check can fail');
  const tool = askUserResponsesTool('en');
  assert.equal(tool.strict, true);
  assert.deepEqual(tool.parameters, strict);

  // What a strict model sends: every key, null where unused, down to options and questions.
  const nullQuestion = (id: string, mode: string, extra: Record<string, unknown>) => ({
    id,
    header: null,
    title: `Q ${id}`,
    description: null,
    mode,
    options: null,
    allowCustom: null,
    required: null,
    ...NULL_BOUNDS,
    ...extra,
  });
  const sent = {
    title: 'Card',
    description: null,
    mode: null,
    options: null,
    allowCustom: null,
    submitLabel: null,
    ...NULL_BOUNDS,
    questions: [
      nullQuestion('pick', 'single', { options: [{ id: 'a', label: 'A', description: null, recommended: null }] }),
      nullQuestion('n', 'number', { max: 5 }),
    ],
  };
  const parsed = parseAskUserArguments(JSON.stringify(sent));
  assert.deepEqual(parsed, {
    ok: true,
    form: {
      title: 'Card',
      questions: [
        { id: 'pick', title: 'Q pick', mode: 'single', options: [{ id: 'a', label: 'A' }] },
        { id: 'n', title: 'Q n', mode: 'number', max: 5 },
      ],
    },
  });
});

test('option previews (§9.3): at most 4000 characters each and 20,000 in all, carried to the card as given', () => {
  const option = (id: string, preview: string) => ({ id, label: id.toUpperCase(), preview });
  const one = { title: 'Plan?', mode: 'single', options: [option('a', '**plan A**\n\n- step 1'), option('b', '`b`')] };
  assert.deepEqual(issues(one), []);
  assert.match(issues({ ...one, options: [option('a', 'x'.repeat(4001))] }).join(), /options\.0\.preview/);
  const big = (id: string) => ({
    ...q(id, { mode: 'single' }),
    options: ['1', '2', '3'].map((n) => option(`${id}${n}`, 'x'.repeat(2000))),
  });
  assert.deepEqual(issues({ title: 'Card', questions: [big('a'), big('b'), big('c')] }), [], '18,000 characters in all');
  assert.deepEqual(issues({ title: 'Card', questions: [big('a'), big('b'), big('c'), big('d')] }), [
    'questions: previews hold 24000 characters in all; at most 20000',
  ]);
  const parsed = parseAskUserArguments(one);
  assert.equal(parsed.ok && parsed.form.options?.[0]?.preview, '**plan A**\n\n- step 1');
});
