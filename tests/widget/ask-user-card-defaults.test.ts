/**
 * docs/protocol.md §9.1 `default` and `placeholder` on the card: a default pre-fills the form once when the
 * question arrives and is only a draft — nothing is sent until the user submits, and a cancel or timeout
 * receipt never shows it as an answer. A placeholder is a hint in the empty field, never a value.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { checkA11y } from './helpers/axe.js';
import { assert, deepEqual, equal } from './helpers/expect.js';
import {
  $,
  $$,
  cancel,
  cleanup,
  date,
  directory,
  has,
  mount,
  multiple,
  number,
  pick,
  request,
  settle,
  single,
  submit,
  text,
  textOf,
  toggle,
} from './helpers/card-fixtures.js';
import type { AskUserCard } from '../../widget/ask-user-card.js';

afterEach(cleanup);

const checkedIds = (card: AskUserCard) =>
  $$<HTMLInputElement>(card, 'input[part~="control"]')
    .filter((i) => i.checked)
    .map((i) => i.value);
const fieldValue = (card: AskUserCard) => $<HTMLInputElement>(card, '#field').value;

describe('§9.1 default pre-fills the form', () => {
  it('single: that option is checked; multiple and toggle: those options', async () => {
    equal(checkedIds((await mount(single({ default: 'implement' }))).card).join(), 'implement', 'single');
    deepEqual(checkedIds((await mount(multiple({ default: ['skip', 'safe'] }))).card), ['safe', 'skip'], 'multiple');
    deepEqual(checkedIds((await mount(toggle({ default: ['implement'] }))).card), ['implement'], 'toggle');
  });

  it('text, number, date, directory: the value is in the field', async () => {
    const cases = [
      text({ default: '先读代码' }),
      number({ default: '3' }),
      date({ default: '2026-05-01' }),
      directory({ default: 'out/site' }),
    ];
    for (const req of cases) equal(fieldValue((await mount(req)).card), req.default, req.mode);
  });

  it('nothing is sent by a default alone; submit sends it as shown', async () => {
    const { card, calls } = await mount(multiple({ default: ['safe', 'skip'] }));
    await settle(card);
    deepEqual(calls, [], 'nothing sent on arrival');
    await submit(card);
    await settle(card);
    deepEqual(calls, [{ selections: ['safe', 'skip'], customInput: '', cancelled: false }]);
  });

  it('the user changes a pre-filled answer before sending it', async () => {
    const { card, calls } = await mount(single({ default: 'implement' }));
    await pick(card, '跳过');
    await submit(card);
    await settle(card);
    deepEqual(calls, [{ selections: ['skip'], customInput: '', cancelled: false }]);
  });

  it('pre-fills once: a re-render of the same question keeps what the user changed', async () => {
    const { card } = await mount(number({ default: '3' }));
    const field = $<HTMLInputElement>(card, '#field');
    equal(field.value, '3', 'pre-filled');
    field.value = '8';
    field.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    card.request = { ...card.request! };
    await card.updateComplete;
    equal(fieldValue(card), '8', 'kept');
  });

  it('a cancel receipt does not show the default as an answer', async () => {
    const { card, calls } = await mount(single({ default: 'implement' }));
    deepEqual(checkedIds(card), ['implement'], 'pre-filled');
    await cancel(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }], 'a cancel');
    equal($(card, '[part~="receipt"]').dataset.kind, 'cancelled', 'cancelled receipt');
    equal(has(card, '[part~="receipt-answer"]'), false, 'no answer in the receipt');
  });

  it('a timeout receipt does not show the default as an answer', async () => {
    const { card, calls } = await mount(text({ default: '先读代码', expiresAt: new Date(Date.now() + 400).toISOString() }));
    equal(fieldValue(card), '先读代码', 'pre-filled');
    await new Promise((r) => setTimeout(r, 1600));
    await settle(card);
    equal($(card, '[part~="receipt"]').dataset.kind, 'expired', 'timed out');
    equal(has(card, '[part~="receipt-answer"]'), false, 'no answer in the receipt');
    deepEqual(calls, [], 'nothing sent');
  });

  it('a default that is not an option on screen is left out', async () => {
    const { card } = await mount(multiple({ default: ['safe', 'gone'] }));
    deepEqual(checkedIds(card), ['safe']);
  });

  it('axe: pre-filled forms', async () => {
    for (const req of [single({ default: 'safe' }), toggle({ default: ['safe'] })]) {
      const { card } = await mount(req);
      deepEqual(checkedIds(card), ['safe'], `${req.mode} pre-filled`);
      await checkA11y(card, `${req.mode} pre-filled`);
    }
    const { card } = await mount(date({ default: '2026-05-01' }));
    equal(fieldValue(card), '2026-05-01', 'date pre-filled');
    await checkA11y(card, 'date pre-filled');
  });
});

describe('§9.1 placeholder', () => {
  it('is the hint of an empty text, number or directory field, never its value', async () => {
    for (const mode of ['text', 'number', 'directory'] as const) {
      const { card, calls } = await mount(request({ mode, placeholder: '例如 42' }));
      const field = $<HTMLInputElement>(card, '#field');
      equal(field.getAttribute('placeholder'), '例如 42', `${mode} placeholder`);
      equal(field.value, '', `${mode} empty`);
      await submit(card);
      deepEqual(calls, [], `${mode}: the placeholder is not an answer`);
    }
    // Without one, the built-in hints stay.
    equal($((await mount(text())).card, '#field').getAttribute('placeholder'), '请输入回答', 'text');
    equal($((await mount(directory())).card, '#field').getAttribute('placeholder'), 'src/components', 'directory');
    equal($((await mount(number())).card, '#field').hasAttribute('placeholder'), false, 'number');
  });

  it('shows on a date field, which has no placeholder of its own, as a hint the field is described by', async () => {
    const { card, calls } = await mount(date({ placeholder: '项目上线的日期', min: '2026-01-01' }));
    const field = $<HTMLInputElement>(card, '#field');
    equal(field.hasAttribute('placeholder'), false, 'no placeholder the date field would ignore');
    const hint = $(card, '#placeholder');
    equal(hint.textContent, '项目上线的日期', 'the hint');
    assert(hint.getBoundingClientRect().height > 0, 'the hint is shown');
    deepEqual(
      field.getAttribute('aria-describedby')?.split(' '),
      ['placeholder', 'hint'],
      'the field is described by it, then by its own hint',
    );
    await submit(card);
    deepEqual(calls, [], 'the placeholder is not an answer');
    equal(textOf(card, '#placeholder'), '项目上线的日期', 'still shown beside the error');
    await checkA11y(card, 'a date with a placeholder, refused');
  });

  it('is the hint of the Other box', async () => {
    const { card } = await mount(single({ allowCustom: true, placeholder: '写下你的方案' }));
    equal($(card, '#other').getAttribute('placeholder'), '写下你的方案');
    equal($<HTMLTextAreaElement>(card, '#other').value, '');
  });
});
