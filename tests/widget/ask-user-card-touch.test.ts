/**
 * The card on a phone and for assistive tech: the whole option box selects, programmatic focus is shown
 * on the card's rounded box (not a square inside it), fields are large enough that iOS does not zoom,
 * hints do not contradict the control or repeat their error, and a late answer says it was not used.
 */
import { resetMouse, sendKeys, sendMouse } from '@web/test-runner-commands';
import type { AskUserCard } from '../../widget/ask-user-card.js';
import { STRINGS } from '../../widget/strings.js';
import { describe, it, afterEach } from './helpers/bdd.js';
import { assert, equal, excludes, includes, until } from './helpers/expect.js';
import {
  $,
  $$,
  cleanup,
  date,
  directory,
  has,
  link,
  mount,
  multiple,
  number,
  pick,
  settle,
  single,
  submit,
  text,
  textOf,
  toggle,
} from './helpers/card-fixtures.js';

afterEach(async () => {
  cleanup();
  await resetMouse();
});

/** A real pointer click at the centre of `el` (or at `dx, dy` from its top-left), as a finger would tap. */
async function tap(el: Element, at?: { dx: number; dy: number }): Promise<void> {
  const r = el.getBoundingClientRect();
  const x = Math.round(at ? r.left + at.dx : r.left + r.width / 2);
  const y = Math.round(at ? r.top + at.dy : r.top + r.height / 2);
  await sendMouse({ type: 'click', position: [x, y] });
}

const checked = (card: AskUserCard) =>
  $$<HTMLInputElement>(card, '[part~="control"]')
    .filter((c) => c.checked)
    .map((c) => c.value);

describe('the whole option box selects', () => {
  for (const [mode, make] of [
    ['single', single],
    ['multiple', multiple],
    ['toggle', toggle],
  ] as const) {
    it(`${mode}: a tap on the description, or on the box's padding, picks the option`, async () => {
      const { card } = await mount(make(), { noAutofocus: true });
      const [first, second] = $$(card, '[part~="option"]');
      await tap($(card, '#option-1-description'));
      await card.updateComplete;
      equal(checked(card).join(), 'implement', `${mode}: after a tap on the second option's description`);
      // The right end of the first box, far from its control and its label's text.
      const box = first!.getBoundingClientRect();
      await tap(first!, { dx: box.width - 6, dy: box.height - 5 });
      await card.updateComplete;
      equal(checked(card).sort().join(), mode === 'single' ? 'safe' : 'implement,safe', `${mode}: after a tap on the first box's corner`);
      assert(second, 'two options');
    });
  }

  it('the option keeps its name: the label, not the description', async () => {
    const { card } = await mount(single(), { noAutofocus: true });
    const input = $<HTMLInputElement>(card, '#option-0');
    equal([...input.labels!].map((l) => l.textContent!.trim()).join('|'), '先分析推荐');
    includes(input.getAttribute('aria-describedby'), 'option-0-description');
  });
});

describe('focus indication follows the card', () => {
  const ring = (el: Element) => getComputedStyle(el).outlineStyle;
  /** The user typed (a chat message, say) before the card appeared: Chromium then shows programmatic focus. */
  async function afterTyping(): Promise<void> {
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    await sendKeys({ press: 'a' });
  }

  it('when the card appears, focus is on the question and the ring is on the rounded card, not a square inside it', async () => {
    await afterTyping();
    const { card } = await mount(single());
    const fieldset = $(card, 'fieldset');
    equal(card.shadowRoot!.activeElement, fieldset, 'focus moved to the question');
    assert(fieldset.matches(':focus-visible'), 'Chromium shows programmatic focus here (the case the ring is about)');
    equal(ring(fieldset), 'none', 'the fieldset draws no ring of its own');
    const base = $(card, '[part~="base"]');
    equal(ring(base), 'solid', 'the card shows the focus');
    assert(parseFloat(getComputedStyle(base).borderTopLeftRadius) > 0, 'the card is rounded, and an outline follows its corners');
  });

  it('when the card turns into a receipt, the same', async () => {
    await afterTyping();
    const { card } = await mount(single());
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    const receipt = $(card, '[part~="receipt"]');
    equal(card.shadowRoot!.activeElement, receipt, 'focus moved to the receipt');
    equal(ring(receipt), 'none', 'the receipt draws no square ring inside the card');
    equal(ring($(card, '[part~="base"]')), 'solid', 'the card shows the focus');
  });

  it('a control focused by keyboard still has its own ring, and the card then has none', async () => {
    await afterTyping();
    const { card } = await mount(single());
    const button = $<HTMLButtonElement>(card, '[part~="submit-button"]');
    button.focus();
    await card.updateComplete;
    equal(ring(button), 'solid');
    equal(ring($(card, '[part~="base"]')), 'none');
  });
});

describe('fields are at least 16px, so iOS does not zoom on focus', () => {
  for (const [mode, make] of [
    ['text', text],
    ['number', number],
    ['date', date],
    ['directory', directory],
  ] as const) {
    it(`${mode} field`, async () => {
      const { card } = await mount(make(), { noAutofocus: true });
      const size = parseFloat(getComputedStyle($(card, '[part~="field"]')).fontSize);
      assert(size >= 16, `${mode}: the field's text is ${size}px`);
    });
  }
  it('the "Other" box', async () => {
    const { card } = await mount(single({ allowCustom: true }), { noAutofocus: true });
    const size = parseFloat(getComputedStyle($(card, '[part~="custom-input"]')).fontSize);
    assert(size >= 16, `the Other box's text is ${size}px`);
  });
});

describe('hints', () => {
  it("the date hint names no order of its own: the native control shows the locale's", async () => {
    for (const locale of ['zh-CN', 'en'] as const) {
      const { card } = await mount(date(), { noAutofocus: true, locale });
      const hint = textOf(card, '[part~="hint"]');
      for (const order of ['年-月-日', '年月日', 'year-month-day', 'YYYY']) excludes(hint, order, `${locale} date hint`);
      await submit(card);
      for (const order of ['年-月-日', 'year-month-day']) excludes(textOf(card, '#error-customInput'), order, `${locale} date error`);
      card.remove();
    }
  });

  for (const [mode, make, field] of [
    ['toggle', toggle, 'selections'],
    ['number', number, 'customInput'],
  ] as const) {
    it(`${mode}: once its error shows, the hint that says nearly the same goes, and nothing points at it`, async () => {
      const { card } = await mount(make(), { noAutofocus: true });
      assert(has(card, '[part~="hint"]'), 'the hint shows before any error');
      await submit(card);
      assert(has(card, `#error-${field}`), 'the error shows');
      equal($$(card, '[part~="hint"]').length, 0, 'the hint is gone while the error says it');
      for (const el of $$(card, '[aria-describedby]')) {
        for (const id of el.getAttribute('aria-describedby')!.split(' '))
          assert(card.shadowRoot!.getElementById(id), `aria-describedby points at a missing #${id}`);
      }
    });
  }
});

describe('a late answer (409 already_answered) says it was not used', () => {
  const refused = (status: string) => () =>
    Promise.resolve({
      ok: false,
      status: 409,
      error: { code: 'already_answered', message: 'm', receipt: { requestId: 'r', toolCallId: 't', status, at: '2026-01-02T03:04:05Z' } },
    });

  it('first answered elsewhere: not green, and says this answer was not used', async () => {
    const { card } = await mount(single(), { onSubmit: refused('answered') });
    await pick(card, '直接实现');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    const all = textOf(card, '[part~="receipt"]');
    includes(all, STRINGS['zh-CN'].lateAnswerNotUsed, 'receipt');
    includes(all, STRINGS['zh-CN'].receiptAnsweredElsewhere, 'receipt');
    const success = getComputedStyle($(card, '[part~="receipt"]')).getPropertyValue('--_success').trim();
    const status = getComputedStyle($(card, '[part~="receipt-status"]')).color;
    const probe = document.createElement('span');
    probe.style.color = success;
    document.body.append(probe);
    assert(status !== getComputedStyle(probe).color, `the status of an answer that was not used is in the success colour (${status})`);
    includes(card.shadowRoot!.querySelector('[role="status"]')!.textContent, STRINGS['zh-CN'].lateAnswerNotUsed, 'announcement');
  });

  it('first cancelled elsewhere: the cancelled receipt, and this answer was not used', async () => {
    const { card } = await mount(single(), { onSubmit: refused('cancelled'), locale: 'en' });
    await pick(card, '直接实现');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal($(card, '[part~="receipt"]').dataset.kind, 'cancelled');
    includes(textOf(card, '[part~="receipt"]'), STRINGS.en.lateAnswerNotUsed, 'receipt');
  });

  it('after a failure that may have reached the server, a 409 may be this answer: it is not called unused', async () => {
    let calls = 0;
    const { card } = await mount(single(), {
      onSubmit: () => (++calls === 1 ? Promise.reject(new TypeError('network down')) : refused('answered')()),
    });
    await pick(card, '直接实现');
    await submit(card);
    await until(() => has(card, '[part~="retry-button"]'), 'retry');
    $<HTMLButtonElement>(card, '[part~="retry-button"]').click();
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    excludes(textOf(card, '[part~="receipt"]'), STRINGS['zh-CN'].lateAnswerNotUsed, 'receipt');
  });
});

describe('targets a finger hits', () => {
  /** Height of the card's element at `selector`, as laid out. */
  const height = (card: AskUserCard, selector: string) => $(card, selector).getBoundingClientRect().height;

  it('every button is at least 44px tall: submit, cancel, retry, and the link card’s open link and decline', async () => {
    const { card } = await mount(single(), { onSubmit: () => Promise.reject(new TypeError('network down')) });
    await pick(card, '直接实现');
    await submit(card);
    await until(() => has(card, '[part~="retry-button"]'), 'retry');
    for (const part of ['submit-button', 'cancel-button', 'retry-button']) {
      const h = height(card, `[part~="${part}"]`);
      assert(h >= 44, `${part} is ${h}px tall`);
    }
    const linked = await mount(link());
    for (const part of ['open-link', 'cancel-button']) {
      const h = height(linked.card, `[part~="${part}"]`);
      assert(h >= 44, `the link card's ${part} is ${h}px tall`);
    }
    // The link's words sit in the middle of its height, as a button's do.
    const a = $(linked.card, '[part~="open-link"]').getBoundingClientRect();
    const words = document.createRange();
    words.selectNodeContents($(linked.card, '[part~="open-link"]'));
    const w = words.getBoundingClientRect();
    assert(
      Math.abs(w.top - a.top - (a.bottom - w.bottom)) <= 1,
      `the words are centred (${w.top - a.top}px above, ${a.bottom - w.bottom}px below)`,
    );
  });
});
