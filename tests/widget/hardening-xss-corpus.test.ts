/**
 * The XSS corpus (helpers/xss-payloads.ts, 100+ strings) through every model-text field of
 * `<ask-user-card>` — title, description, option labels, option descriptions, option ids, submitLabel —
 * and back through the receipt (the payload chosen and typed in the Other box). Each string must render
 * as exactly that text, with 0 executions: no `__xssHit()` call, no element made from it (the card's
 * element structure equals a plain-text card's, and a MutationObserver sees nothing added outside the
 * card), and no resource load attempted (an injected `<img src=x>` would fire an error event). The two
 * descriptions may hold the §9.3 Markdown subset: a payload using it renders as that subset and nothing
 * else. The built card is tested, as it loads its Markdown chunk.
 */
import './helpers/built-widget.js';
import { describe, it, before, after, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal } from './helpers/expect.js';
import { $, cleanup, mount, settle, submit, type } from './helpers/card-fixtures.js';
import { XSS_PAYLOADS } from './helpers/xss-payloads.js';
import { assertSafe, frame, rendered } from './helpers/rich-text.js';
import { isRich } from '../../widget/rich-text.js';
import type { AskUserRequest } from '../../widget/ask-user-card.js';

declare global {
  interface Window {
    __xss: number;
    __xssHit: () => void;
  }
}

let counter = 0;
const requestFor = (text: string): AskUserRequest => ({
  id: `ask_xss${String(++counter).padStart(5, '0')}AAAAAAAAAAAAAA`,
  toolCallId: `call_xss_${counter}`,
  sessionId: 'xss',
  title: text,
  description: text,
  mode: 'single',
  allowCustom: true,
  submitLabel: text,
  options: [
    { id: text, label: text, description: text },
    { id: 'plain', label: 'plain' },
  ],
  expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
  resumable: true,
});

/** The tag names of the card's own elements in its shadow tree, in document order, Markdown left out. */
const structure = frame;

/** Gives a wrongly parsed `<img src=x>`, `<svg onload>` or autofocus handler time to fire. */
const letHandlersRun = () => new Promise((r) => setTimeout(r, 200));

describe('XSS corpus through <ask-user-card>', () => {
  const added: string[] = [];
  const resourceErrors: string[] = [];
  let observer: MutationObserver;
  const onResourceError = (e: Event) => {
    const target = e.target as Element | null;
    if (target && target !== (window as unknown as Element)) resourceErrors.push(target.localName ?? String(target));
  };

  before(() => {
    window.__xss = 0;
    window.__xssHit = () => void window.__xss++;
    // Anything added to the page outside the cards the tests mount is an injection.
    observer = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) if (n instanceof Element && n.localName !== 'ask-user-card') added.push(n.outerHTML.slice(0, 120));
      }
    });
    observer.observe(document.documentElement, { childList: true, subtree: true });
    window.addEventListener('error', onResourceError, true);
  });
  after(() => {
    observer.disconnect();
    window.removeEventListener('error', onResourceError, true);
  });
  afterEach(cleanup);

  it(`holds at least 100 distinct payloads (${XSS_PAYLOADS.length})`, () => {
    assert(XSS_PAYLOADS.length >= 100, `only ${XSS_PAYLOADS.length}`);
    equal(new Set(XSS_PAYLOADS).size, XSS_PAYLOADS.length, 'distinct payloads');
  });

  it('every payload renders as exactly its text in every field, with the structure of a plain card', async () => {
    const plain = await mount(requestFor('plain text'));
    const expected = structure(plain.card.shadowRoot!);
    cleanup();
    for (const payload of XSS_PAYLOADS) {
      const { card } = await mount(requestFor(payload));
      const root = card.shadowRoot!;
      const where = `payload ${JSON.stringify(payload.slice(0, 60))}`;
      deepEqual(structure(root), expected, `element structure for ${where}`);
      equal($(card, 'legend').textContent, payload, `title of ${where}`);
      equal($(card, 'label[for="option-0"]').textContent, payload, `option label of ${where}`);
      if (isRich(payload)) {
        await rendered(card, '[part~="description"]');
        await rendered(card, '#option-0-description');
        assertSafe(root, where);
      } else {
        equal($(card, '[part~="description"]').textContent, payload, `description of ${where}`);
        equal($(card, '#option-0-description').textContent, payload, `option description of ${where}`);
      }
      equal($<HTMLInputElement>(card, '#option-0').value, payload, `option id of ${where}`);
      equal($(card, '[part~="submit-button"]').textContent!.trim(), payload.trim(), `submitLabel of ${where}`);
      card.remove();
    }
    await letHandlersRun();
    equal(window.__xss, 0, 'script executions');
    deepEqual(added, [], 'elements added outside the cards');
    deepEqual(resourceErrors, [], 'resource loads attempted by injected elements');
  });

  it('the receipt shows the chosen payload label and the typed payload as text, and the id goes back unchanged', async () => {
    for (const payload of XSS_PAYLOADS) {
      const { card, calls } = await mount(requestFor(payload));
      $<HTMLInputElement>(card, '#option-0').click();
      await card.updateComplete;
      await type(card, '#other', payload);
      await submit(card);
      await settle(card);
      const where = `payload ${JSON.stringify(payload.slice(0, 60))}`;
      deepEqual(calls[0], { selections: [payload], customInput: payload, cancelled: false }, `submission of ${where}`);
      const receipt = $(card, '[part~="receipt-answer"]').textContent ?? '';
      assert(receipt.includes(payload), `receipt shows ${where} as text: ${JSON.stringify(receipt.slice(0, 200))}`);
      assert(
        !card.shadowRoot!.querySelector(
          'script, img, svg, iframe, object, embed, video, audio, math, style:not([data-lit]), a, base, meta, link, marquee, details, frameset, template',
        ),
        `no injected element in the receipt of ${where}`,
      );
      card.remove();
    }
    await letHandlersRun();
    equal(window.__xss, 0, 'script executions');
    deepEqual(added, [], 'elements added outside the cards');
    deepEqual(resourceErrors, [], 'resource loads attempted by injected elements');
  });

  it('the hook itself works: a payload put into the page as HTML on purpose does run (control)', async () => {
    const probe = document.createElement('div');
    probe.innerHTML = '<img src=x onerror=__xssHit()>';
    document.body.append(probe);
    await letHandlersRun();
    equal(window.__xss, 1, 'the control payload ran');
    probe.remove();
    window.__xss = 0;
    added.length = 0;
    resourceErrors.length = 0;
  });
});
