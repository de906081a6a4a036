/**
 * A card of several questions (§9.2) is one card with one claim: duplicate submits, the countdown, the
 * server's 409/410/404/403/503, `resumable: false` and another tab's answer behave as for one question.
 */
import { setViewport } from '@web/test-runner-commands';
import { describe, it, afterEach, after } from './helpers/bdd.js';
import { assert, deepEqual, equal, includes, until } from './helpers/expect.js';
import { $, $$, cleanup, has, mount, settle, submit, textOf } from './helpers/card-fixtures.js';
import { form, recordingFetch, refused } from './helpers/form-fixtures.js';

afterEach(cleanup);
after(() => setViewport({ width: 800, height: 600 }));

const kind = (card: HTMLElement & { shadowRoot: ShadowRoot | null }) =>
  card.shadowRoot!.querySelector<HTMLElement>('[part~="receipt"]')?.dataset.kind;

async function posting(respond: Parameters<typeof recordingFetch>[0], o = {}) {
  const net = recordingFetch(respond);
  const { card } = await mount(form(o), { onSubmit: undefined, endpoint: '/api', fetch: net.fetch });
  return { card, posted: net.posted };
}

describe('a card of several questions, per card', () => {
  it('sends once however often submit is pressed while it is in flight', async () => {
    let release!: () => void;
    const { card, posted } = await posting(async () => {
      await new Promise<void>((r) => (release = r));
      return recordingFetch().fetch('/x', { body: '{}' });
    });
    await submit(card);
    await until(() => posted.length === 1, 'the first post');
    await submit(card);
    $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
    await settle(card);
    equal(posted.length, 1, 'one claim');
    equal(textOf(card, '[part~="submit-button"]'), '正在提交…');
    release();
    await until(() => kind(card) === 'answered', 'the receipt');
  });

  it('409 already_answered shows the first answer’s receipt, marked as not used', async () => {
    const { card } = await posting(
      refused(409, { code: 'already_answered', message: 'm', receipt: { requestId: 'r', toolCallId: 't', status: 'answered', at: 'T' } }),
    );
    await submit(card);
    await until(() => kind(card) === 'elsewhere', 'the 409 receipt');
    includes(textOf(card, '[part~="receipt"]'), '你在这里的回答未被采用');
  });

  for (const [status, code, expected] of [
    [410, 'expired', 'expired'],
    [404, 'not_found', 'gone'],
  ] as const) {
    it(`${status} ${code} closes the card as ${expected}`, async () => {
      const { card } = await posting(refused(status, { code, message: 'm' }));
      await submit(card);
      await until(() => kind(card) === expected, expected);
    });
  }

  it('403 keeps the form open with the answers as they were', async () => {
    const { card } = await posting(refused(403, { code: 'forbidden', message: 'm' }));
    await submit(card);
    await until(() => has(card, '[part~="server-error"]'), 'the refusal');
    equal($<HTMLInputElement>(card, '#q1-field').value, '4');
    equal(has(card, '[part~="retry-button"]'), false);
  });

  it('resumable: false shows the restart notice and sends nothing', async () => {
    const { card, posted } = await posting(undefined, { resumable: false });
    equal(kind(card), 'not-resumable');
    equal($$(card, 'button, input, textarea').length, 0);
    equal(posted.length, 0);
  });

  it('past expiresAt it is a timeout receipt, never the pre-filled defaults as an answer', async () => {
    const { card, posted } = await posting(undefined, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    equal(kind(card), 'expired');
    equal(has(card, '[part~="receipt-answer"]'), false);
    equal(posted.length, 0);
  });

  it('another tab’s answer closes it with that tab’s choices', async () => {
    const { card } = await mount(form());
    card.markResolved({
      requestId: card.request!.id,
      status: 'answered',
      answers: [
        { id: 'plan', selections: ['skip'], customInputLength: 0 },
        { id: 'workers', selections: [], customInputLength: 1 },
        { id: 'note', selections: [], customInputLength: 0 },
      ],
    });
    await card.updateComplete;
    deepEqual(
      $$(card, '[part~="receipt-answer"] dd').map((d) => d.textContent!.trim()),
      ['跳过', '（已填写）', '（跳过）'],
      'labels from the event; text it never saw is said to exist, not shown',
    );
  });

  it('fits a 375 px WebView without sideways scrolling', async () => {
    await setViewport({ width: 375, height: 700 });
    const { card } = await mount(form());
    const base = $(card, '[part~="base"]');
    assert(base.scrollWidth <= base.clientWidth, `the card scrolls sideways: ${base.scrollWidth} > ${base.clientWidth}`);
    assert(document.documentElement.scrollWidth <= 375, `the page scrolls sideways: ${document.documentElement.scrollWidth}`);
  });
});
