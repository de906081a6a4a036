/**
 * After a reload the demo page redraws a closed §9.2 card from the stored ask_user arguments and the
 * ToolResult content `{"answers":[…]}` (demo/page/history.ts): it must read exactly as the live card's receipt.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import { $, cleanup, mount, settle, submit, textOf, type } from './helpers/card-fixtures.js';
import { form } from './helpers/form-fixtures.js';
import { historicReceipt, historyEntries, type HistoricReceipt, type SessionItem } from '../../demo/page/history.js';
import { answerToolResultText, closedToolResultText } from '../../plugin/contract/tool-result.js';
import type { AskUserCard } from '../../widget/ask-user-card.js';

afterEach(cleanup);

/** The model's arguments for the fixture's card: what the session stores for the call. */
const ARGS = (() => {
  const { title, description, submitLabel, questions } = form();
  return JSON.stringify({ title, description, submitLabel, questions });
})();

const session = (content: string, at: string): SessionItem[] => [
  { role: 'user', text: 'go' },
  { role: 'assistant', text: '', toolCalls: [{ id: 'call_f', name: 'ask_user', arguments: ARGS }] },
  { role: 'tool', toolCallId: 'call_f', text: content, at },
  { role: 'assistant', text: 'done' },
];

async function redraw(items: SessionItem[], locale: 'zh-CN' | 'en' = 'zh-CN'): Promise<ShadowRoot> {
  const receipts = historyEntries(items).flatMap((e) => (e.kind === 'receipt' ? [e.receipt] : []));
  equal(receipts.length, 1, 'one receipt');
  const card = historicReceipt(receipts[0] as HistoricReceipt, locale);
  document.body.append(card);
  await card.updateComplete;
  return card.shadowRoot!;
}

const receiptText = (root: ParentNode) => root.querySelector('[part~="receipt"]')!.textContent!.replace(/\s+/g, ' ').trim();

describe('a redrawn §9.2 receipt', () => {
  for (const locale of ['zh-CN', 'en'] as const) {
    it(`reads as the live one (${locale})`, async () => {
      const sent: unknown[] = [];
      const { card } = await mount(form(), {
        locale,
        onSubmit: (...args: unknown[]) => void sent.push(args[3]),
      } as Partial<AskUserCard>);
      $<HTMLInputElement>(card, '#q0-option-1').click();
      await type(card, '#q1-field', '7');
      await submit(card);
      await settle(card);
      card.markRunEnded('completed');
      await card.updateComplete;
      const at = $(card, 'time').getAttribute('datetime')!;
      const content = answerToolResultText({ selections: [], customInput: '', cancelled: false, answers: sent[0] as never });
      const root = await redraw(session(content, at), locale);
      equal(receiptText(root), receiptText(card.shadowRoot!), 'the same words');
      deepEqual(
        [...root.querySelectorAll('dd')].map((d) => d.textContent!.trim()),
        ['直接实现', '7', locale === 'en' ? '(skipped)' : '（跳过）'],
      );
    });
  }

  it('keeps cancelled and expired as they were', async () => {
    const at = '2030-01-01T00:00:00.000Z';
    const cancelled = await redraw(session(answerToolResultText({ selections: [], customInput: '', cancelled: true, answers: [] }), at));
    equal(cancelled.querySelector<HTMLElement>('[part~="receipt"]')!.dataset.kind, 'cancelled');
    const expired = await redraw(session(closedToolResultText('expired', true), at));
    equal(expired.querySelector<HTMLElement>('[part~="receipt"]')!.dataset.kind, 'expired');
    equal(textOf({ shadowRoot: expired } as unknown as AskUserCard, '[part~="receipt-question"]'), '开始之前确认三件事');
  });
});
