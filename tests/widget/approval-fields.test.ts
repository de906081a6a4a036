/**
 * The approval card's pure helpers (§12): which schemas get a form of fields, what an edit reads as and
 * where the schema refuses it, how long values fold, and where a server's refusal lands.
 */
import { describe, it } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import {
  approvalsOf,
  codePoints,
  fieldValues,
  flatFields,
  folded,
  readFields,
  readJson,
  refusedAt,
  sameJson,
} from '../../widget/approval-fields.js';

const FLAT = {
  type: 'object',
  properties: {
    branch: { type: 'string', title: 'Branch', minLength: 1 },
    depth: { type: 'integer', minimum: 1 },
    ratio: { type: 'number' },
    force: { type: 'boolean' },
    mode: { enum: ['fast', 'safe', 3] },
  },
  required: ['branch'],
  additionalProperties: false,
};

describe('flatFields: a flat object schema becomes fields', () => {
  it('reads string, integer, number, boolean and enum properties, with titles and required', () => {
    const fields = flatFields(FLAT, { branch: 'main', depth: 2 })!;
    deepEqual(
      fields.map((f) => [f.key, f.kind, f.label, f.required]),
      [
        ['branch', 'string', 'Branch', true],
        ['depth', 'integer', 'depth', false],
        ['ratio', 'number', 'ratio', false],
        ['force', 'boolean', 'force', false],
        ['mode', 'enum', 'mode', false],
      ],
      'fields',
    );
    deepEqual(fieldValues(fields, { branch: 'main', depth: 2, force: true, mode: 3 }), {
      branch: 'main',
      depth: '2',
      ratio: '',
      force: 'true',
      mode: '2',
    });
  });

  it('gives up (JSON text instead) for nesting, arrays, unknown types, no schema, or an argument no field can hold', () => {
    equal(flatFields(undefined, {}), undefined, 'no schema');
    equal(flatFields({ type: 'object', properties: { a: { type: 'object' } } }, {}), undefined, 'nested object');
    equal(flatFields({ type: 'object', properties: { a: { type: 'array' } } }, {}), undefined, 'array');
    equal(flatFields({ type: 'object', properties: { a: { type: ['string', 'null'] } } }, {}), undefined, 'type union');
    equal(flatFields({ type: 'array', items: {} }, {}), undefined, 'not an object');
    equal(flatFields(FLAT, { branch: 'main', extra: 1 }), undefined, 'an argument outside the schema');
    equal(flatFields(FLAT, { branch: 7 }), undefined, 'an argument of another type');
    equal(flatFields(FLAT, { depth: 1.5, branch: 'x' }), undefined, 'a fraction where an integer goes');
  });
});

describe('readFields / readJson: an edit, checked against the schema', () => {
  const fields = flatFields(FLAT, { branch: 'main' })!;
  const values = (o: Record<string, string>) => ({ ...fieldValues(fields, { branch: 'main' }), ...o });

  it('turns the fields into typed arguments, leaving blank optional ones out', () => {
    deepEqual(readFields(fields, values({ depth: ' 3 ', ratio: '0.5', force: 'true', mode: '2' }), { branch: 'main' }, FLAT), {
      value: { branch: 'main', depth: 3, ratio: 0.5, force: true, mode: 3 },
    });
    deepEqual(readFields(fields, values({}), { branch: 'main' }, FLAT), { value: { branch: 'main', force: false } });
  });

  it('refuses an edit with the field named: required, not a number, not an integer, and the schema', () => {
    deepEqual(readFields(fields, values({ branch: '' }), {}, FLAT).problem, { path: '.branch', key: 'approvalRequired' });
    deepEqual(readFields(fields, values({ depth: '2x' }), {}, FLAT).problem, { path: '.depth', key: 'approvalNotANumber' });
    deepEqual(readFields(fields, values({ depth: '2.5' }), {}, FLAT).problem, { path: '.depth', key: 'approvalNotAnInteger' });
    deepEqual(readFields(fields, values({ depth: '0' }), {}, FLAT).problem, { path: '.depth', key: 'approvalSchema' });
    // An empty text the call carried stays '' and the schema (minLength) names it.
    deepEqual(readFields(fields, values({ branch: '' }), { branch: '' }, { ...FLAT, required: [] }).problem, {
      path: '.branch',
      key: 'approvalSchema',
    });
  });

  it('reads JSON text as an object and names the deepest field the schema refuses', () => {
    const schema = {
      type: 'object',
      properties: { files: { type: 'array', items: { type: 'object', properties: { 'a b': { type: 'string' } } } } },
    };
    deepEqual(readJson('{"files":[{"a b":"x"}]}', schema), { value: { files: [{ 'a b': 'x' }] } });
    deepEqual(readJson('{"files":[{"a b":1}]}', schema).problem, { path: '.files[0]["a b"]', key: 'approvalSchema' });
    deepEqual(readJson('{nope', schema).problem, { path: '', key: 'approvalNotJson' });
    deepEqual(readJson('[1]', schema).problem, { path: '', key: 'approvalNotAnObject' });
  });

  it('compares edits by content, not key order', () => {
    equal(sameJson({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }), true);
    equal(sameJson({ a: 1 }, { a: '1' }), false);
  });
});

describe('folding, code points, calls and refusals', () => {
  it('folds long strings and many lines, and counts code points', () => {
    equal(folded('short'), undefined, 'a short value');
    equal(folded('x'.repeat(160)), undefined, 'at the limit');
    equal(folded('x'.repeat(161)), `${'x'.repeat(160)}…`, 'over it');
    equal(folded('1\n2\n3\n4'), '1\n2\n3…', 'more than three lines');
    equal(folded('😀'.repeat(200))?.length, 321, 'never splits a surrogate pair');
    equal(codePoints('😀'.repeat(500)), 500, 'code points');
  });

  it('keeps only well-formed calls and their known keys', () => {
    deepEqual(
      approvalsOf([
        { toolCallId: 'c1', tool: 't', title: 'T', arguments: {}, editable: true, allowAlways: 'yes', schema: { type: 'object' }, x: 1 },
        { toolCallId: 'c2', tool: 't', title: 'T', arguments: [] },
        null,
      ]),
      [{ toolCallId: 'c1', tool: 't', title: 'T', arguments: {}, editable: true, allowAlways: false, schema: { type: 'object' } }],
    );
    deepEqual(approvalsOf('nope'), []);
  });

  it('places a refusal on its call and part', () => {
    deepEqual(refusedAt('decisions[1].arguments.branch'), { call: 1, part: 'arguments', path: '.branch' });
    deepEqual(refusedAt('decisions[0].always'), { call: 0, part: 'always', path: '' });
    deepEqual(refusedAt('decisions[2].toolCallId'), { call: 2, part: 'decision', path: '' });
    deepEqual(refusedAt('decisions'), undefined);
    deepEqual(refusedAt('answers[0].customInput'), undefined);
  });
});
