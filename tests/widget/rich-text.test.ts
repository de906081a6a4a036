/**
 * The Markdown subset of docs/protocol.md §9.3 in descriptions and previews: what renders, what stays
 * literal text, and a Markdown XSS corpus with 0 executions and nothing outside the subset in the card.
 */
import './helpers/built-widget.js';
import { describe, it, before, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal, excludes, includes } from './helpers/expect.js';
import { $, $$, cleanup, mount, request, single } from './helpers/card-fixtures.js';
import { form } from './helpers/form-fixtures.js';
import { assertSafe, frame, rendered } from './helpers/rich-text.js';
import { XSS_PAYLOADS } from './helpers/xss-payloads.js';
import type { AskUserRequest } from '../../widget/ask-user-card.js';
import { isRich } from '../../widget/rich-text.js';

declare global {
  interface Window {
    __xss: number;
    __xssHit: () => void;
  }
}

afterEach(cleanup);

/** A card whose question description, option description and option preview all hold `md`. */
const richCard = (md: string): AskUserRequest =>
  single({
    title: '*title* stays text',
    description: md,
    options: [
      { id: 'a', label: '**label** stays text', description: md, preview: md },
      { id: 'b', label: 'plain' },
    ],
    default: 'a',
  });

const tags = (el: Element) => [...el.querySelectorAll('*')].map((e) => e.localName);

describe('the Markdown subset', () => {
  const cases: Array<[string, string, string[]]> = [
    ['emphasis, strong, inline code', 'an *em* and **strong** and `co*de*`', ['p', 'em', 'strong', 'code']],
    ['a fenced code block', '```js\nconst a = 1 < 2;\n```', ['pre', 'code']],
    ['a bullet list', '- one\n- two', ['ul', 'li', 'li']],
    ['a numbered list', '3. three\n4. four', ['ol', 'li', 'li']],
    ['paragraphs and a hard break', 'one *x*\n\ntwo  \nthree', ['p', 'em', 'p', 'br']],
    ['an https link', 'see [the docs](https://example.com/a?b=1)', ['p', 'a']],
  ];
  for (const [what, md, expected] of cases) {
    it(`renders ${what} as ${expected.join(', ')}`, async () => {
      const { card } = await mount(richCard(md));
      for (const part of ['#description', '#option-0-description', '.preview-body']) {
        const el = await rendered(card, part);
        deepEqual(tags(el.parentElement!), expected, `${what} in ${part}`);
      }
      assertSafe(card.shadowRoot!, what);
    });
  }

  it('keeps list numbers, code text and line breaks as written', async () => {
    const { card } = await mount(richCard('3. three\n\n```\n<b>x</b>\n  indented\n```\n\nline one\nline two'));
    await rendered(card, '#description');
    equal($<HTMLOListElement>(card, '#description ol').start, 3, 'start');
    equal($(card, '#description pre').textContent, '<b>x</b>\n  indented\n', 'code as text');
    includes($(card, '#description').textContent, 'line one\nline two', 'a soft line break stays a break');
  });

  it('links open in a new tab without an opener', async () => {
    const { card } = await mount(richCard('[a](https://example.com) and [b](http://example.com/x)'));
    await rendered(card, '#description');
    const links = $$<HTMLAnchorElement>(card, '#description a');
    deepEqual(
      links.map((a) => [a.getAttribute('href'), a.rel, a.target]),
      [
        ['https://example.com', 'noopener noreferrer', '_blank'],
        ['http://example.com/x', 'noopener noreferrer', '_blank'],
      ],
    );
  });

  const literal: Array<[string, string, string]> = [
    ['a heading', '# Not a heading', '# Not a heading'],
    ['a setext heading', 'Title\n=====', '====='],
    ['a block quote', '> not quoted', '> not quoted'],
    ['an image', '![alt](https://example.com/x.png)', '![alt](https://example.com/x.png)'],
    ['a table', '| a | b |\n|---|---|\n| 1 | 2 |', '| a | b |'],
    ['raw HTML', '<b>bold</b> and <div>block</div>', '<b>bold</b> and <div>block</div>'],
    ['an HTML comment', '<!-- hidden -->', '<!-- hidden -->'],
    ['an autolink', '<https://example.com>', '<https://example.com>'],
    ['a mailto autolink', '<mailto:a@example.com>', '<mailto:a@example.com>'],
    ['a thematic break', '***\n\n___', '***'],
    ['indented code', 'para\n\n    indented', 'indented'],
    ['an entity', '&lt;b&gt; &amp; &#106;', '&lt;b&gt; &amp; &#106;'],
    ['a reference link', '[a][r]\n\n[r]: https://example.com', '[r]: https://example.com'],
    ['a javascript: link', '[click](javascript:alert(1))', 'click'],
    ['a mailto: link', '[mail](mailto:a@example.com)', 'mail'],
    ['a relative link', '[rel](/path)', 'rel'],
  ];
  for (const [what, md, shown] of literal) {
    it(`shows ${what} as literal text`, async () => {
      const { card } = await mount(richCard(md));
      for (const part of ['#description', '#option-0-description', '.preview-body']) {
        // Text with no character the subset uses renders as plain text at once.
        const el = isRich(md) ? (await rendered(card, part)).parentElement! : $(card, part);
        includes(el.textContent, shown, `${what} in ${part}`);
        assert(!el.querySelector('h1, h2, blockquote, img, table, hr, b, div, a'), `${what} made markup in ${part}: ${el.innerHTML}`);
      }
      assertSafe(card.shadowRoot!, what);
    });
  }

  it('title, labels and headers stay plain text', async () => {
    const { card } = await mount(richCard('*x*'));
    await rendered(card, '#description');
    equal($(card, 'legend').textContent, '*title* stays text');
    equal($(card, 'label[for="option-0"]').textContent, '**label** stays text');
    equal($(card, 'legend').querySelector('em, strong'), null);
  });

  it('a §9.2 card: the introduction and each question’s description render the subset', async () => {
    const req = form({ description: 'intro with **strong**' });
    req.questions![1]!.description = '- a\n- b';
    const { card } = await mount(req);
    equal((await rendered(card, '#description')).localName, 'p');
    deepEqual(tags((await rendered(card, '#q1-description')).parentElement!), ['ul', 'li', 'li']);
  });

  it('plain text renders as before: no element, line breaks kept', async () => {
    const { card } = await mount(richCard('plain text\nsecond line (no markup) 1.5 - 2'));
    await new Promise((r) => setTimeout(r, 100));
    equal($(card, '#description').childElementCount, 0);
    equal($(card, '#description').textContent, 'plain text\nsecond line (no markup) 1.5 - 2');
  });
});

describe('the Markdown XSS corpus', () => {
  before(() => {
    window.__xss = 0;
    window.__xssHit = () => void window.__xss++;
  });

  const MARKDOWN_VECTORS = [
    '[a](javascript:__xssHit())',
    '[a](JAVASCRIPT:__xssHit())',
    '[a](JaVaScRiPt:__xssHit())',
    '[a](java\tscript:__xssHit())',
    '[a](<java\tscript:__xssHit()>)',
    '[a](<javascript:__xssHit()>)',
    '[a]( javascript:__xssHit())',
    '[a](\u0001javascript:__xssHit())',
    '[a](data:text/html;base64,PHNjcmlwdD5fX3hzc0hpdCgpPC9zY3JpcHQ+)',
    '[a](data:text/html,<script>__xssHit()</script>)',
    '[a](vbscript:__xssHit())',
    '[a](&#106;avascript:__xssHit())',
    '[a](&#x6A;avascript:__xssHit())',
    '[a](javascript&#58;__xssHit())',
    '[a](%6Aavascript:__xssHit())',
    '[a][r]\n\n[r]: javascript:__xssHit()',
    '[r]\n\n[r]: javascript:__xssHit()',
    '<javascript:__xssHit()>',
    '<a href=javascript:__xssHit()>x</a>',
    '<a href="https://example.com" onclick="__xssHit()">x</a>',
    '*<b>*bold*</b>*',
    '**<img src=x onerror=__xssHit()>**',
    '_<svg onload=__xssHit()>_',
    '`<img src=x onerror=__xssHit()>`',
    '```\n</code></pre><img src=x onerror=__xssHit()>\n```',
    '```"><img src=x onerror=__xssHit()>\ncode\n```',
    '[<img src=x onerror=__xssHit()>](https://example.com)',
    '[a](https://example.com "<img src=x onerror=__xssHit()>")',
    '[a](https://example.com" onmouseover="__xssHit())',
    "[a](https://example.com'onmouseover='__xssHit())",
    '- <script>__xssHit()</script>\n- <iframe src=javascript:__xssHit()>',
    '1. <details open ontoggle=__xssHit()>',
    '&lt;script&gt;__xssHit()&lt;/script&gt;',
    '&#60;img src=x onerror=__xssHit()&#62;',
    '\\<img src=x onerror=__xssHit()\\>',
    '![x](javascript:__xssHit())',
    '![x](https://example.com/x.png" onerror="__xssHit())',
    '[a](https://example.com)<img src=x onerror=__xssHit()>',
    '<div>\n\n*x*\n\n</div><img src=x onerror=__xssHit()>',
    `\`\`\`\n${'x'.repeat(3000)}<script>__xssHit()</script>\n\`\`\``,
  ];

  it(`${MARKDOWN_VECTORS.length} Markdown vectors and the ${XSS_PAYLOADS.length} HTML ones: 0 executions, nothing outside the subset`, async () => {
    const plain = await mount(richCard('*plain*'));
    await rendered(plain.card, '.preview-body');
    const expected = frame(plain.card.shadowRoot!);
    cleanup();
    const cards = [];
    for (const md of [...MARKDOWN_VECTORS, ...XSS_PAYLOADS]) {
      const { card } = await mount(richCard(md));
      cards.push([card, md] as const);
    }
    for (const [card, md] of cards) {
      const where = JSON.stringify(md.slice(0, 60));
      // Plain-text payloads render no element; rich ones wait for the renderer.
      if (isRich(md)) await rendered(card, '.preview-body');
      assertSafe(card.shadowRoot!, where);
      deepEqual(frame(card.shadowRoot!), expected, `the card's own structure for ${where}`);
      excludes($(card, '#description').innerHTML, '<script', where);
    }
    await new Promise((r) => setTimeout(r, 300));
    equal(window.__xss, 0, 'script executions');
  });

  it('a very long code block scrolls in the preview and wraps in a description; the card does not widen', async () => {
    const plain = await mount(richCard('short'));
    plain.card.style.width = '30rem';
    const width = plain.card.getBoundingClientRect().width;
    cleanup();
    const long = `\`\`\`\n${'const x = "a very long line of code without a break";'.repeat(40)}\n\`\`\``;
    const { card } = await mount(richCard(long));
    card.style.width = '30rem';
    await rendered(card, '.preview-body');
    await rendered(card, '#description');
    equal(card.getBoundingClientRect().width, width, 'card width');
    const preview = $(card, '[part~="preview"]');
    assert(preview.scrollWidth > preview.clientWidth, 'the preview scrolls sideways');
    assert(preview.getBoundingClientRect().right <= card.getBoundingClientRect().right, 'the preview stays inside the card');
    const description = $(card, '#description');
    assert(description.scrollWidth <= description.clientWidth, 'the description wraps its code');
  });

  it('a link in an option description can be clicked above the label’s cover', async () => {
    const { card } = await mount(
      request({ mode: 'single', options: [{ id: 'a', label: 'A', description: '[docs](https://example.com)' }] }),
    );
    const link = (await rendered(card, '#option-0-description')).querySelector('a')!;
    const r = link.getBoundingClientRect();
    const hit = card.shadowRoot!.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    equal(hit, link, 'the topmost element at the link');
  });
});
