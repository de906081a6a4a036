/**
 * A request off the network passes the minimal check (string id, toolCallId, title, mode) yet carries
 * malformed optional fields: the card still renders, shows only the well-formed options, and an answer
 * carries only ids that are on screen.
 */
import { describe, it, beforeEach, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal, includes } from './helpers/expect.js';
import {
  $,
  $$,
  cleanup,
  has,
  mount,
  multiple,
  number,
  pick,
  request,
  settle,
  single,
  submit,
  textOf,
  type,
} from './helpers/card-fixtures.js';
import type { AskUserCard } from '../../widget/ask-user-card.js';

let pageErrors: string[] = [];
const onError = (e: ErrorEvent) => pageErrors.push(`error: ${e.message}`);
const onRejection = (e: PromiseRejectionEvent) => pageErrors.push(`unhandledrejection: ${String(e.reason)}`);

beforeEach(() => {
  pageErrors = [];
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
});
afterEach(() => {
  window.removeEventListener('error', onError);
  window.removeEventListener('unhandledrejection', onRejection);
  cleanup();
});

/** Mounts without letting a rejected update hide behind the fixture: the error is recorded instead. */
async function mountSafely(req: unknown) {
  const mounted = await mount(req).catch((err: unknown) => {
    pageErrors.push(`render: ${String(err)}`);
    return undefined;
  });
  assert(mounted, `the card rendered; errors: ${pageErrors.join(' | ')}`);
  return mounted;
}

async function assertNoPageErrors(card: AskUserCard) {
  await settle(card);
  deepEqual(pageErrors, [], 'uncaught errors');
}

/** Each option's label text, without the recommended badge (lit's marker comments are not text nodes). */
const labels = (card: AskUserCard) =>
  $$(card, '[part~="option-label"]').map((l) =>
    [...l.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent)
      .join('')
      .trim(),
  );
const shownIds = (card: AskUserCard) => $$<HTMLInputElement>(card, 'input[part~="control"]').map((i) => i.value);

const GOOD = { id: 'ok', label: 'OK' };

/** `options` as sent, the labels that must show, and the ids that picking every shown option submits. */
const OPTION_CASES: Array<[name: string, options: unknown, shown: string[], sent: string[]]> = [
  ['options is an object', { 0: GOOD, length: 1 }, [], []],
  ['options is a string', 'safe,implement', [], []],
  ['options is a number', 3, [], []],
  ['entries that are null, strings, numbers, arrays', [null, 'safe', 7, ['x', 'y'], true, GOOD], ['OK'], ['ok']],
  [
    'entries without a non-blank string id and label',
    [
      { id: 1, label: 'one' },
      { id: 'two' },
      { label: 'three' },
      { id: '', label: 'empty' },
      { id: '  ', label: 'blank' },
      { id: 'four', label: {} },
      { id: 'five', label: 5 },
      { id: 'six', label: '' },
      GOOD,
    ],
    ['OK'],
    ['ok'],
  ],
  [
    'duplicate ids keep the first option',
    [
      { id: 'a', label: 'First' },
      { id: 'a', label: 'Second' },
      { id: 'b', label: 'Bee' },
      { id: 'b', label: 'Bee again' },
    ],
    ['First', 'Bee'],
    ['a', 'b'],
  ],
];

describe('a request with malformed optional fields', () => {
  for (const [name, options, shown, sent] of OPTION_CASES) {
    it(`${name}: renders the well-formed options only and submits only their ids`, async () => {
      // allowCustom lets an answer go out even when no option survives.
      const { card, calls } = await mountSafely(multiple({ options: options as never, allowCustom: true }));
      deepEqual(labels(card), shown, 'shown labels');
      for (const label of shown) await pick(card, label);
      await type(card, '#other', 'note');
      await submit(card);
      await settle(card);
      equal(calls.length, 1, 'one submission');
      deepEqual(calls[0]!.selections, sent, 'selections');
      await assertNoPageErrors(card);
    });
  }

  it('a single-choice duplicate cannot be picked through its second control', async () => {
    const { card, calls } = await mountSafely(
      single({
        options: [
          { id: 'a', label: 'First' },
          { id: 'a', label: 'Second' },
          { id: 'b', label: 'Bee' },
        ] as never,
      }),
    );
    deepEqual(labels(card), ['First', 'Bee'], 'shown labels');
    deepEqual(shownIds(card), ['a', 'b'], 'one control per id');
    await pick(card, 'Bee');
    await submit(card);
    await settle(card);
    deepEqual(calls[0]?.selections, ['b'], 'selections');
    await assertNoPageErrors(card);
  });

  it('wrong-typed description, label parts, recommended, allowCustom and submitLabel count as absent', async () => {
    const req = {
      ...multiple(),
      description: { text: 'desc' },
      submitLabel: 42,
      allowCustom: 'true',
      sessionId: 7,
      resumable: 'false',
      options: [
        { id: 'a', label: 'Alpha', description: 99, recommended: 'yes' },
        { id: 'b', label: 'Beta', description: { html: '<b>x</b>' }, recommended: 1 },
        { id: 'c', label: 'Gamma', description: 'real description', recommended: true },
      ],
    };
    const { card, calls } = await mountSafely(req);
    assert(!has(card, '[part~="description"]'), 'no question description from an object');
    deepEqual(
      $$(card, '[part~="option-description"]').map((d) => d.textContent),
      ['real description'],
      'only the string option description',
    );
    equal($$(card, '[part~="recommended-badge"]').length, 1, 'only recommended: true gets the badge');
    includes($(card, 'label[for="option-2"]').textContent, textOf(card, '[part~="recommended-badge"]'), 'badge on Gamma');
    assert(!has(card, '#other'), 'no Other box for allowCustom "true"');
    equal(textOf(card, '[part~="submit-button"]'), '提交', 'default submit label');
    await pick(card, 'Beta');
    await submit(card);
    await settle(card);
    // resumable "false" is not `false`: the card stays answerable.
    deepEqual(calls, [{ selections: ['b'], customInput: '', cancelled: false }], 'submission');
    await assertNoPageErrors(card);
  });

  for (const [name, expiresAt] of [
    ['not a date string', 'in five minutes'],
    ['a number', 1_900_000_000_000],
    ['an object', { at: '2030-01-01T00:00:00Z' }],
  ] as const) {
    it(`expiresAt that is ${name}: no countdown, the card stays answerable, an expired receipt shows no time`, async () => {
      const { card, calls } = await mountSafely({ ...single(), expiresAt });
      assert(!has(card, '[part~="expiry"]'), 'no countdown');
      await pick(card, '先分析');
      await submit(card);
      await settle(card);
      deepEqual(calls[0]?.selections, ['safe'], 'selections');

      const { card: over } = await mountSafely({ ...single(), status: 'expired', expiresAt });
      equal($(over, '[part~="receipt"]').dataset.kind, 'expired', 'receipt');
      assert(!has(over, '[part~="receipt-time"]'), 'no receipt time made of a malformed expiresAt');
      await assertNoPageErrors(over);
    });
  }

  it('a text mode with garbage options renders its field', async () => {
    const { card, calls } = await mountSafely(request({ mode: 'text', options: 'nope' as never }));
    await type(card, '#field', 'hello');
    await submit(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: 'hello', cancelled: false }], 'submission');
    await assertNoPageErrors(card);
  });

  it('an unknown mode with malformed fields still says so and offers cancel', async () => {
    const { card, calls } = await mountSafely({ ...single(), mode: 'slider', options: { a: 1 }, description: 5, submitLabel: [] });
    includes(textOf(card, '[part~="hint"]'), 'slider', 'names the mode');
    assert(!has(card, '[part~="submit-button"]'), 'no submit');
    assert(!has(card, '[part~="description"]'), 'no description from a number');
    $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }], 'cancel sent');
    await assertNoPageErrors(card);
  });

  it('a new request object for the same id is read afresh, not from the previous one', async () => {
    const first = multiple({ options: [null, GOOD] as never });
    const { card, calls } = await mountSafely(first);
    deepEqual(labels(card), ['OK'], 'first request');
    card.request = { ...first, options: [GOOD, { id: 'more', label: 'More' }] };
    await card.updateComplete;
    deepEqual(labels(card), ['OK', 'More'], 'replacement request');
    await pick(card, 'More');
    await submit(card);
    await settle(card);
    deepEqual(calls[0]?.selections, ['more'], 'selections');
    await assertNoPageErrors(card);
  });
  it('§9.1 fields of the wrong type are dropped: no crash, no bound, no pre-fill, no odd attribute', async () => {
    const bad = {
      placeholder: 5,
      default: { id: 'x' },
      min: {},
      max: [9],
      step: -1,
      minLength: 1.5,
      maxLength: '3',
      minSelections: -2,
      maxSelections: null,
    };
    // Beside them a well-typed max, which is kept and holds.
    const { card, calls } = await mountSafely(number({ ...bad, max: 500 } as never));
    const field = $<HTMLInputElement>(card, '#field');
    deepEqual(
      ['placeholder', 'min', 'max', 'minlength', 'maxlength'].map((a) => field.getAttribute(a)),
      [null, null, '500', null, null],
      'attributes',
    );
    equal(field.getAttribute('step'), 'any', 'step');
    equal(field.value, '', 'no pre-fill from an object');
    await type(card, '#field', '1000');
    await submit(card);
    await settle(card);
    deepEqual(calls, [], 'the kept max holds');
    await type(card, '#field', '100');
    await submit(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '100', cancelled: false }], 'no dropped bound held it back');
    const choice = await mountSafely(multiple({ ...bad, default: ['safe', 7], allowCustom: true } as never));
    deepEqual(
      $$<HTMLInputElement>(choice.card, 'input[part~="control"]').filter((i) => i.checked).length,
      0,
      'a default array with a non-string is dropped',
    );
    await assertNoPageErrors(card);
  });
});
