/** Contract §10's mapping table, row by row, the answers typed back as the schema says, and URL mode's link card. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentFromAnswers, formFromElicitation, linkFromElicitation } from '../../../plugin/mcp/index.js';

const one = (schema: Record<string, unknown>, required = true, locale: 'zh' | 'en' = 'zh') => {
  const mapped = formFromElicitation(
    'Title line\nMore words',
    { type: 'object', properties: { p: schema }, required: required ? ['p'] : [] },
    locale,
  );
  assert.ok(mapped.ok, !mapped.ok ? mapped.reason : '');
  return { q: mapped.form.questions![0]!, plan: mapped.plan, form: mapped.form };
};

test('each property shape becomes its question', () => {
  assert.deepEqual(one({ type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] }).q.options, [
    { id: 'a', label: 'A' },
    { id: 'b', label: 'B' },
  ]);
  assert.deepEqual(one({ type: 'string', oneOf: [{ const: 'x', title: 'Ex' }, { const: 'y' }] }).q, {
    id: 'p',
    title: 'p',
    mode: 'single',
    options: [
      { id: 'x', label: 'Ex' },
      { id: 'y', label: 'y' },
    ],
  });
  const multi = one({
    type: 'array',
    items: {
      anyOf: [
        { const: 'a', title: 'A' },
        { const: 'b', title: 'B' },
      ],
    },
    minItems: 1,
    maxItems: 2,
    default: ['a'],
  }).q;
  assert.deepEqual([multi.mode, multi.minSelections, multi.maxSelections, multi.default], ['multiple', 1, 2, ['a']]);
  assert.deepEqual(one({ type: 'boolean', default: false }).q, {
    id: 'p',
    title: 'p',
    mode: 'single',
    options: [
      { id: 'true', label: '是' },
      { id: 'false', label: '否' },
    ],
    default: 'false',
  });
  assert.deepEqual(
    one({ type: 'boolean' }, true, 'en').q.options!.map((o) => o.label),
    ['Yes', 'No'],
  );
  assert.deepEqual(one({ type: 'integer', minimum: 1, maximum: 9, default: 3 }).q, {
    id: 'p',
    title: 'p',
    mode: 'number',
    min: 1,
    max: 9,
    step: 1,
    default: '3',
  });
  assert.equal(one({ type: 'number' }).q.step, undefined, 'a number may be any decimal');
  assert.equal(one({ type: 'string', format: 'date' }).q.mode, 'date');
  assert.deepEqual(one({ type: 'string', format: 'uri', minLength: 3, maxLength: 90, title: 'Link', description: 'Where' }, false).q, {
    id: 'p',
    title: 'Link',
    description: 'Where',
    required: false,
    mode: 'text',
    minLength: 3,
    maxLength: 90,
    format: 'uri',
  });
  const { form } = one({ type: 'string' });
  assert.deepEqual([form.title, form.description], ['Title line', 'More words'], 'the message is the title and the introduction');
});

test('names that are not question ids are renamed, and the answers go back under the property names, typed', () => {
  const mapped = formFromElicitation('m', {
    type: 'object',
    properties: {
      'start date': { type: 'string', format: 'date' },
      n: { type: 'integer' },
      ok: { type: 'boolean' },
      pick: { type: 'string', enum: ['a'] },
      many: { type: 'array', items: { enum: ['x', 'y'] } },
      note: { type: 'string' },
    },
  });
  assert.ok(mapped.ok);
  assert.equal(mapped.form.questions![0]!.id, 'q0');
  const content = contentFromAnswers(mapped.plan, [
    { id: 'q0', selections: [], customInput: '2026-12-10' },
    { id: 'n', selections: [], customInput: '42' },
    { id: 'ok', selections: ['false'], customInput: '' },
    { id: 'pick', selections: ['a'], customInput: '' },
    { id: 'many', selections: ['y', 'x'], customInput: '' },
    { id: 'note', selections: [], customInput: '' },
  ]);
  assert.deepEqual(
    content,
    { 'start date': '2026-12-10', n: 42, ok: false, pick: 'a', many: ['y', 'x'] },
    'a blank optional answer is left out',
  );
});

test('a blank optional answer takes the schema default of its own type; a default of another type is never sent', () => {
  const mapped = formFromElicitation('m', {
    type: 'object',
    properties: {
      room: { type: 'string', default: 'Lotus' },
      n: { type: 'integer', default: 3 },
      ok: { type: 'boolean', default: false },
      many: { type: 'array', items: { enum: ['x', 'y'] }, default: ['y'] },
      odd: { type: 'number', default: 'three' },
      kept: { type: 'string', default: 'unused' },
    },
  });
  assert.ok(mapped.ok);
  const blank = (id: string) => ({ id, selections: [], customInput: '' });
  const content = contentFromAnswers(mapped.plan, [
    blank('room'),
    blank('n'),
    blank('ok'),
    blank('many'),
    blank('odd'),
    { id: 'kept', selections: [], customInput: 'typed' },
  ]);
  assert.deepEqual(content, { room: 'Lotus', n: 3, ok: false, many: ['y'], kept: 'typed' });
});

test('a schema outside the shapes is refused with the reason, never half mapped', () => {
  const refuse = (schema: unknown) => {
    const r = formFromElicitation('m', schema);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.reason;
  };
  assert.match(refuse({ type: 'object', properties: {} }), /0 properties/);
  assert.match(refuse({ type: 'object', properties: { a: { type: 'object' } } }), /property "a" has type "object"/);
  assert.match(refuse({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } }), /array without enum/);
  assert.match(
    refuse({ type: 'object', properties: { a: { type: 'string', enum: Array.from({ length: 51 }, (_, i) => `o${i}`) } } }),
    /unusable list/,
  );
  assert.match(refuse({ type: 'string' }), /not an object schema/);
});

test('URL mode: an http(s) link with a host becomes a link card; any other link is refused', () => {
  assert.deepEqual(linkFromElicitation('Sign in\nTo see free times.', 'https://calendar.example/auth?state=x', 'en'), {
    ok: true,
    form: { title: 'Sign in', description: 'To see free times.', url: 'https://calendar.example/auth?state=x' },
    plan: [],
  });
  assert.equal(linkFromElicitation('', 'http://127.0.0.1:8080/connect', 'en').ok, true);
  for (const url of [
    'javascript:alert(1)',
    'JAVASCRIPT:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'ftp://files.example/x',
    'https://bank.example@evil.example/',
    'https://user:pw@evil.example/',
    'https:///no-host',
    'https:\\\\evil.example/',
    '/relative/path',
    'https://exa mple.com/',
    `https://example.com/${'a'.repeat(2048)}`,
    42,
    undefined,
  ]) {
    const mapped = linkFromElicitation('Sign in', url, 'en');
    assert.equal(mapped.ok, false, `${String(url).slice(0, 40)} is refused`);
  }
});
