/**
 * Model text is text: markup in any field of the request, in a server's error message or in the user's
 * own input is shown literally and never runs.
 */
import { describe, it, beforeEach, afterEach } from './helpers/bdd.js';
import { assert, equal, includes } from './helpers/expect.js';
import { $, cleanup, mount, pick, settle, single, submit, textOf, type } from './helpers/card-fixtures.js';

declare global {
  interface Window {
    __xss: number;
  }
}

const IMG = '<img src=x onerror="window.__xss++">';
const SCRIPT = '<script>window.__xss++</script>';
const BOTH = `${IMG}${SCRIPT}`;

beforeEach(() => {
  window.__xss = 0;
});
afterEach(cleanup);

/** Gives a wrongly parsed `<img src=x>` time to fail loading and fire its handler. */
const letHandlersRun = () => new Promise((r) => setTimeout(r, 150));

function assertInert(root: ShadowRoot) {
  equal(root.querySelectorAll('img, script').length, 0, 'no element made from model text');
}

describe('markup in model text', () => {
  it('title, description, labels, descriptions, ids and submitLabel render as text with 0 executions', async () => {
    const req = single({
      title: `标题 ${BOTH}`,
      description: `说明 ${IMG}`,
      submitLabel: SCRIPT.slice(0, 40),
      allowCustom: true,
      options: [
        { id: IMG, label: `选项 ${IMG}`, description: SCRIPT, recommended: true },
        { id: 'b', label: SCRIPT },
      ],
    });
    const { card, calls } = await mount(req);
    includes(textOf(card, 'legend'), IMG, 'title as text');
    includes(textOf(card, '[part~="description"]'), IMG, 'description as text');
    includes(textOf(card, 'label[for="option-0"]'), IMG, 'label as text');
    includes(textOf(card, '#option-0-description'), SCRIPT, 'option description as text');
    equal(textOf(card, '[part~="submit-button"]'), SCRIPT.slice(0, 40), 'submitLabel as text');
    assertInert(card.shadowRoot!);

    await pick(card, `选项 ${IMG}`);
    await type(card, '#other', BOTH);
    await submit(card);
    await settle(card);
    equal(calls[0]!.selections[0], IMG, 'the id goes back unchanged');
    includes(textOf(card, '[part~="receipt-answer"]'), `选项 ${IMG}`, 'receipt label as text');
    includes(textOf(card, '[part~="receipt-answer"]'), BOTH, 'typed text as text');
    assertInert(card.shadowRoot!);
    await letHandlersRun();
    equal(window.__xss, 0, 'executions');
  });

  it("a server's error message is shown as text", async () => {
    const { card } = await mount(single(), {
      onSubmit: () => Promise.resolve({ ok: false, status: 503, error: { code: 'store_unavailable', message: BOTH } }),
    });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="server-error"]'), BOTH, 'detail as text');
    assertInert(card.shadowRoot!);
    await letHandlersRun();
    equal(window.__xss, 0, 'executions');
  });

  it('strings overrides are text too', async () => {
    const { card } = await mount(single({ status: 'expired' }), { strings: { receiptExpired: IMG } });
    equal(textOf(card, '[part~="receipt-status"]'), IMG, 'override as text');
    assertInert(card.shadowRoot!);
    assert($(card, '[part~="receipt"]'), 'receipt');
    await letHandlersRun();
    equal(window.__xss, 0, 'executions');
  });
});
