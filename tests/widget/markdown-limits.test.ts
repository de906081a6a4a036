/**
 * The renderer's bounds on work (widget/markdown-limits.ts), checked on the built Markdown chunk (the
 * sources' micromark is its development build, which needs CommonJS): whatever a text within §9.3's limits
 * holds, lists nest at most 12 deep and at most 200 list items and 200 runs of `*` or `_` are parsed as
 * Markdown; past that the characters stay literal text. Ordinary Markdown stays within the bounds. How long
 * rendering takes is measured by `npm run bench` (bench/markdown-render.ts), never asserted here.
 */
import { describe, it, before } from './helpers/bdd.js';
import { assert, equal, includes } from './helpers/expect.js';
import { LONGEST, ORDINARY, WORST_SHAPES } from './helpers/markdown-shapes.js';

/** widget/markdown-limits.ts's bounds: `LIST_COLUMNS` / 2, `LIST_ITEMS`, `EMPHASIS_RUNS`. */
const DEPTH = 12;
const ITEMS = 200;
const RUNS = 200;

type Render = (text: string) => DocumentFragment;
let render: Render;

/** How deep lists nest in `root`. */
function listDepth(root: ParentNode): number {
  let deepest = 0;
  for (const list of root.querySelectorAll('ul, ol')) {
    let depth = 0;
    for (let el: Element | null = list; el; el = el.parentElement?.closest('ul, ol') ?? null) depth++;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/** Rendered inside a box, so that `closest` can walk up through the lists. */
const box = (text: string) => {
  const div = document.createElement('div');
  div.append(render(text));
  return div;
};

describe('the Markdown renderer’s bounds', () => {
  before(async () => {
    const url = '/dist/widget/ask-user-kit.markdown.js';
    const response = await fetch(url, { method: 'HEAD' });
    if (!response.ok) throw new Error(`${url} is missing: run \`npx vite build\` before the browser tests.`);
    render = ((await import(/* @vite-ignore */ url)) as { renderMarkdown: Render }).renderMarkdown;
  });

  it(`every worst shape of ${LONGEST} characters: lists at most ${DEPTH} deep, at most ${ITEMS} items, ${RUNS / 2} emphases`, () => {
    for (const [name, text] of Object.entries(WORST_SHAPES)) {
      equal(text.length, LONGEST, `${name}: length`);
      const out = box(text);
      assert(listDepth(out) <= DEPTH, `${name}: lists ${listDepth(out)} deep`);
      const items = out.querySelectorAll('li').length;
      assert(items <= ITEMS, `${name}: ${items} list items`);
      const emphases = out.querySelectorAll('em, strong').length;
      assert(emphases <= RUNS / 2, `${name}: ${emphases} emphases`);
    }
  });

  it('ordinary Markdown renders in full: lists nested four deep, 150 items, 100 strong spans', () => {
    equal(listDepth(box('- a\n  - b\n    - c\n      - d')), 4, 'two-space indents');
    equal(listDepth(box('1. a\n    1. b\n        - c\n            - d')), 4, 'four-space indents');
    equal(box('- a\n'.repeat(150)).querySelectorAll('li').length, 150, 'items');
    equal(box('**b** '.repeat(100)).querySelectorAll('strong').length, 100, 'strong spans');
    const ordinary = box(ORDINARY);
    assert(ordinary.querySelector('ul li code') && ordinary.querySelector('pre code') && ordinary.querySelector('a[href]'), 'the preview');
  });

  it('past the bounds the characters are literal text', () => {
    const deep = box(`${'- '.repeat(DEPTH)}- - x`);
    equal(listDepth(deep), DEPTH, 'nesting');
    includes(deep.textContent, '- - x', 'the markers past the depth');
    const items = box('- a\n'.repeat(ITEMS) + '- past');
    equal(items.querySelectorAll('li').length, ITEMS, 'items');
    includes(items.textContent, '- past', 'the item past the bound');
    const strong = box('**b** '.repeat(RUNS / 2) + '**past**');
    equal(strong.querySelectorAll('strong').length, RUNS / 2, 'strong spans');
    includes(strong.textContent, '**past**', 'the markers past the bound');
  });
});
