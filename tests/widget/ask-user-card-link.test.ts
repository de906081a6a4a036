/**
 * A link card (§10 URL mode: an MCP server asks the user to open a page of its own): the message, the
 * link's host in plain text, an "open" link to a new tab without opener or referrer, and a decline
 * button (the card's cancel, which the MCP bridge answers as `decline`). Opening the link is the answer; a link that is not plain http(s) is
 * never made a link, whatever it holds.
 */
import { sendKeys } from '@web/test-runner-commands';
import { describe, it, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal } from './helpers/expect.js';
import { $, $$, cleanup, deepActiveElement, has, link, mount, openWithoutNavigating, settle, textOf } from './helpers/card-fixtures.js';

declare global {
  interface Window {
    __opened: number;
  }
}

afterEach(cleanup);

describe('link card', () => {
  it('shows the message, the host in plain text and a link that opens a new tab without opener or referrer', async () => {
    const { card } = await mount(link());
    equal(textOf(card, 'legend'), '连接你的日历');
    equal(textOf(card, '[part~="description"]'), '在日历页面登录，以便查找空闲时间。');
    equal(textOf(card, '#link-host'), '链接将打开：calendar.example:8443');
    const a = $<HTMLAnchorElement>(card, '[part~="open-link"]');
    equal(a.getAttribute('href'), 'https://calendar.example:8443/connect?state=abc');
    equal(a.target, '_blank');
    deepEqual(a.rel.split(' ').sort(), ['noopener', 'noreferrer']);
    equal(a.textContent!.trim(), '打开链接');
    equal(a.getAttribute('aria-describedby'), 'link-host', 'the host is read with the link');
    assert(!has(card, '[part~="submit-button"]'), 'no submit button: the link is the answer');
    equal(textOf(card, '[part~="cancel-button"]'), '拒绝', 'its cancel declines, and says so');
  });

  it('shows the real host of a look-alike link, not its user name or its Unicode spelling', async () => {
    const { card } = await mount(link({ url: 'https://xn--80ak6aa92e.com/login' }));
    equal(textOf(card, '#link-host'), '链接将打开：xn--80ak6aa92e.com');
    cleanup();
    const unicode = await mount(link({ url: 'https://аррӏе.com/login' }));
    equal(textOf(unicode.card, '#link-host'), '链接将打开：xn--80ak6aa92e.com', 'punycode, as the browser will go there');
  });

  it('opening the link answers the card once, with nothing in it, and the receipt names the host', async () => {
    const { card, calls } = await mount(link());
    openWithoutNavigating(card);
    openWithoutNavigating(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: false }]);
    assert(has(card, '[part~="receipt"]'), 'a receipt');
    equal(textOf(card, '[part~="receipt-answer"]'), '打开链接 calendar.example:8443');
  });

  it('a middle click opens it too, and so does Enter on the focused link', async () => {
    const middle = await mount(link());
    window.addEventListener('auxclick', (e) => e.preventDefault(), { capture: true, once: true });
    $(middle.card, '[part~="open-link"]').dispatchEvent(
      new MouseEvent('auxclick', { bubbles: true, composed: true, cancelable: true, button: 1 }),
    );
    await settle(middle.card);
    deepEqual(middle.calls, [{ selections: [], customInput: '', cancelled: false }]);
    cleanup();

    const keyboard = await mount(link());
    window.addEventListener('click', (e) => e.preventDefault(), { capture: true, once: true });
    for (let i = 0; i < 4 && deepActiveElement()?.getAttribute('part') !== 'open-link'; i++) await sendKeys({ press: 'Tab' });
    equal(deepActiveElement()?.getAttribute('part'), 'open-link', 'Tab reaches the link');
    await sendKeys({ press: 'Enter' });
    await settle(keyboard.card);
    deepEqual(keyboard.calls, [{ selections: [], customInput: '', cancelled: false }]);
  });

  it('the cancel button declines without opening anything', async () => {
    const { card, calls } = await mount(link());
    $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }]);
  });

  it('speaks English too', async () => {
    const { card } = await mount(link(), { locale: 'en' });
    equal(textOf(card, '#link-host'), 'The link opens: calendar.example:8443');
    equal(textOf(card, '[part~="open-link"]'), 'Open link');
    equal(textOf(card, '[part~="cancel-button"]'), 'Decline');
  });
});

describe('a link that is not plain http(s)', () => {
  const refused = [
    'javascript:window.__opened++',
    'JaVaScRiPt:window.__opened++',
    ' javascript:window.__opened++',
    'data:text/html,<script>opener.__opened++</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://files.example/x',
    'https://bank.example@evil.example/',
    'https://user:pw@evil.example/',
    'https:///evil.example',
    'https:\\\\evil.example',
    '//evil.example/path',
    'https://evil.example/\nx',
  ];
  for (const url of refused) {
    it(`is never a link: ${JSON.stringify(url)}`, async () => {
      window.__opened = 0;
      const { card, calls } = await mount(link({ url }));
      equal($$(card, 'a, [href]').length, 0, 'no link and no href anywhere');
      equal(
        card.shadowRoot!.innerHTML.includes('evil.example') || card.shadowRoot!.innerHTML.includes('javascript'),
        false,
        'the link is not shown',
      );
      assert(has(card, '[part~="cancel-button"]'), 'cancel is offered');
      for (const el of $$(card, 'legend, p, [part~="hint"]')) el.click();
      await settle(card);
      equal(window.__opened, 0, 'nothing ran');
      equal(calls.length, 0, 'nothing was answered');
    });
  }
});
