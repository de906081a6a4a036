/**
 * `<ask-user-card>`'s `receipt` input: a question already closed (a chat's history after a reload) drawn
 * read-only from `request` and `receipt`, in the live card's own words, with no form, no countdown, no
 * event, nothing announced and no focus moved. Clearing it opens the question again.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal, includes } from './helpers/expect.js';
import { checkA11y } from './helpers/axe.js';
import {
  $,
  $$,
  cleanup,
  deepActiveElement,
  has,
  mount,
  pick,
  settle,
  single,
  submit,
  text,
  textOf,
  type,
} from './helpers/card-fixtures.js';
import { form } from './helpers/form-fixtures.js';
import type { AskUserCard, AskUserReceipt, AskUserRequest } from '../../widget/index.js';

afterEach(cleanup);

const AT = '2030-01-02T03:04:05.000Z';
const EVENTS = ['ask-user-submit', 'ask-user-continued', 'ask-user-error', 'ask-user-expired'] as const;

/** Every card event that reaches the document from now on. */
function recordEvents(): string[] {
  const seen: string[] = [];
  for (const name of EVENTS) document.addEventListener(name, (e) => seen.push(e.type));
  return seen;
}

/** A card for a closed question, mounted as a host redraws it: no `onSubmit`, nothing to send with. */
async function closed(request: AskUserRequest, receipt: AskUserReceipt | null, props: Partial<AskUserCard> = {}): Promise<AskUserCard> {
  const card = document.createElement('ask-user-card');
  Object.assign(card, props);
  card.request = request;
  card.receipt = receipt;
  document.body.append(card);
  await card.updateComplete;
  return card;
}

const receiptText = (card: AskUserCard) => textOf(card, '[part~="receipt"]');
const live = (card: AskUserCard) => textOf(card, '[role="status"]');
const controls = (card: AskUserCard) => $$(card, 'form, fieldset, input, textarea, button, a');

describe('<ask-user-card> with a receipt', () => {
  const cases: Array<[AskUserReceipt, string, string | undefined]> = [
    [{ kind: 'answered', at: AT, selections: ['implement'], customInput: '先跑测试', runEnded: 'completed' }, '已提交', '已继续，任务完成'],
    [{ kind: 'answered', at: AT, selections: ['safe'] }, '已提交', '继续执行中…'],
    [{ kind: 'cancelled', at: AT }, '已取消', '任务已停止，不会再次追问。'],
    [{ kind: 'expired', at: AT }, '已超时', '回答时间已过，任务未继续。如仍需要，请重新发起任务。'],
    [{ kind: 'superseded', at: AT }, '已被新消息取代', undefined],
  ];
  for (const [receipt, status, note] of cases) {
    it(`draws ${receipt.kind}${receipt.runEnded ? ` (${receipt.runEnded})` : ''} read-only: the receipt and nothing else`, async () => {
      const card = await closed(single(), receipt);
      const shown = $(card, '[part~="receipt"]');
      equal(shown.dataset.kind, receipt.kind, 'kind');
      equal(textOf(card, '[part~="receipt-question"]'), '请选择执行方式', 'the question as it was asked');
      equal(textOf(card, '[part~="receipt-status"]'), status, 'status');
      equal($(card, 'time').getAttribute('datetime'), AT, 'when');
      if (note) equal(textOf(card, '[part~="receipt-note"]'), note, 'what happens next');
      else equal(has(card, '[part~="receipt-note"]'), false, 'no note');
      deepEqual(
        controls(card).map((el) => el.localName),
        [],
        'no form controls',
      );
      equal(has(card, '[part~="expiry"]'), false, 'no countdown');
      equal(live(card), '', 'nothing announced');
      await checkA11y(card, `${receipt.kind} receipt`);
    });
  }

  it('names the chosen options by their labels and shows the typed text, as the live receipt does', async () => {
    const request = single();
    const { card: liveCard } = await mount(request);
    await pick(liveCard, '直接实现');
    await submit(liveCard);
    await settle(liveCard);
    liveCard.markRunEnded('completed');
    await liveCard.updateComplete;
    const at = $(liveCard, 'time').getAttribute('datetime')!;
    const card = await closed(request, { kind: 'answered', at, selections: ['implement'], customInput: '', runEnded: 'completed' });
    equal(receiptText(card), receiptText(liveCard), 'the same words as the live receipt');
    includes(textOf(card, '[part~="receipt-answer"]'), '直接实现', 'the label, not the id');
  });

  it('draws a card of several questions (§9.2) with each question and its answer', async () => {
    const card = await closed(form(), {
      kind: 'answered',
      at: AT,
      answers: [
        { id: 'plan', selections: ['implement'], customInput: '' },
        { id: 'workers', selections: [], customInput: '7' },
        { id: 'note', selections: [], customInput: '' },
      ],
    });
    const fixture = form().questions!;
    deepEqual(
      $$(card, 'dt').map((d) => d.textContent!.trim()),
      fixture.map((q) => q.header || q.title),
      'every question',
    );
    deepEqual(
      $$(card, 'dd').map((d) => d.textContent!.trim()),
      ['直接实现', '7', '（跳过）'],
      'their answers',
    );
  });

  it('follows the locale, as the live card does', async () => {
    const card = await closed(single(), { kind: 'cancelled', at: AT }, { locale: 'en' });
    equal(textOf(card, '[part~="receipt-status"]'), 'Cancelled', 'status in English');
  });

  it('fires no event, counts nothing down and ignores the host methods while it is set', async () => {
    const seen = recordEvents();
    // A deadline that passes during the test: the live card beside it fires ask-user-expired.
    const request = single({ expiresAt: new Date(Date.now() + 1200).toISOString() });
    const card = await closed(request, { kind: 'answered', at: AT, selections: ['safe'] });
    const { card: control } = await mount({ ...request });
    const expired = new Promise((resolve) => control.addEventListener('ask-user-expired', resolve, { once: true }));

    card.markSubmitted(AT);
    card.markResolved({ requestId: request.id, status: 'superseded', at: AT });
    card.markRunEnded('completed');
    card.showError({ status: 410, error: { code: 'expired', message: 'past' } });
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'the host’s receipt stays');
    includes(textOf(card, '[part~="receipt-note"]'), '继续执行中', 'markRunEnded changes nothing: the host sets runEnded');
    equal(live(card), '', 'nothing announced');

    await expired;
    await settle(card);
    await settle(card);
    deepEqual(seen, ['ask-user-expired'], 'only the live card fired, at its deadline');
    equal($(card, '[part~="receipt"]').dataset.kind, 'answered', 'the deadline did not turn it into a timeout');
  });

  it('moves no focus, where a live card takes it', async () => {
    const outside = document.createElement('button');
    document.body.append(outside);
    outside.focus();
    const card = await closed(single(), { kind: 'expired', at: AT });
    await settle(card);
    equal(deepActiveElement(), outside, 'focus stays where the user was');
    equal(card.shadowRoot!.activeElement, null, 'nothing inside the card is focused');
  });

  it('a new receipt or request redraws it, still silent', async () => {
    const seen = recordEvents();
    const request = single();
    const card = await closed(request, { kind: 'answered', at: AT, selections: ['safe'] });
    card.receipt = { kind: 'answered', at: AT, selections: ['safe'], runEnded: 'paused' };
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-note"]'), '已继续，助手有新的问题', 'the new run note');
    equal($(card, '[part~="receipt-note"]').dataset.run, 'paused', 'data-run');
    card.request = { ...request, title: '换一个问题' };
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-question"]'), '换一个问题', 'the new question');
    card.receipt = { kind: 'superseded', at: AT };
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已被新消息取代', 'the new status');
    equal(live(card), '', 'nothing announced');
    deepEqual(seen, [], 'no events');
  });

  it('cleared, it opens the request as a new question, answerable as any', async () => {
    const sent: string[][] = [];
    const card = await closed(single(), { kind: 'cancelled', at: AT }, { onSubmit: (selections: string[]) => void sent.push(selections) });
    card.receipt = null;
    await card.updateComplete;
    assert(has(card, '[part~="form"]'), 'the form');
    equal(has(card, '[part~="receipt"]'), false, 'no receipt');
    assert(has(card, '[part~="expiry"]'), 'its countdown');
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    deepEqual(sent, [['safe']], 'the answer went out');
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'its own receipt');
    includes(live(card), '已提交', 'announced, as a live card does');
  });

  it('set on an open card, it replaces the form; cleared, the question starts afresh', async () => {
    const { card } = await mount(text());
    await type(card, '[part~="field"]', '写了一半');
    card.receipt = { kind: 'superseded', at: AT };
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已被新消息取代', 'the host’s receipt');
    equal(controls(card).length, 0, 'no controls');
    card.receipt = undefined;
    await card.updateComplete;
    equal($<HTMLTextAreaElement>(card, '[part~="field"]').value, '', 'a fresh draft');
    equal(live(card), '', 'nothing was announced');
  });

  it('a receipt of no known kind renders nothing, and a malformed field is left out', async () => {
    const card = await closed(single(), { kind: 'answered elsewhere' } as unknown as AskUserReceipt);
    equal(card.shadowRoot!.children.length, 0, 'nothing drawn');
    card.receipt = { kind: 'answered', at: 7, selections: 'safe', customInput: '说明' } as unknown as AskUserReceipt;
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'drawn');
    equal(has(card, 'time'), false, 'no time of the wrong type');
    includes(textOf(card, '[part~="receipt-answer"]'), '说明', 'the text');
  });

  it('without a readable request it renders nothing', async () => {
    const card = await closed({ title: 'no id' } as AskUserRequest, { kind: 'answered', at: AT });
    equal(card.shadowRoot!.children.length, 0, 'nothing drawn');
  });
});
