/**
 * What the §9.3 tests share: the subset's tags, a wait for the lazily loaded renderer, and the checks that
 * nothing from the model became markup or script in a card's shadow tree.
 */
import type { AskUserCard } from '../../../widget/ask-user-card.js';
import { assert, until } from './expect.js';

/** Every element the Markdown subset may produce. */
export const SUBSET_TAGS = new Set(['p', 'em', 'strong', 'code', 'pre', 'ul', 'ol', 'li', 'a', 'br']);

/** Where model text may hold Markdown. */
export const RICH = '[part~="description"], [part~="option-description"], .preview-body';

/** Waits until `selector` holds rendered Markdown (any rich text renders at least one block element). */
export const rendered = (card: AskUserCard, selector: string) =>
  until(() => card.shadowRoot!.querySelector(selector)?.firstElementChild, `Markdown rendered in ${selector}`);

/** The card's elements outside the Markdown, by tag: the template's own structure. */
export const frame = (root: ShadowRoot) =>
  [...root.querySelectorAll('*')].filter((el) => !el.parentElement?.closest(RICH)).map((el) => el.localName);

/** Nothing outside the subset, no handler, no script, no link but http(s) opening in a new tab without an opener. */
export function assertSafe(root: ShadowRoot, where: string): void {
  for (const el of root.querySelectorAll('*')) {
    if (el.parentElement?.closest(RICH)) assert(SUBSET_TAGS.has(el.localName), `<${el.localName}> outside the subset in ${where}`);
    for (const a of el.attributes) assert(!/^on/i.test(a.name), `${a.name} on <${el.localName}> in ${where}`);
    const href = el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('xlink:href');
    if (href !== null) assert(/^https?:/i.test(href), `a non-http(s) URL ${JSON.stringify(href)} in ${where}`);
  }
  assert(!root.querySelector('script, img, iframe, svg, math, object, embed, style:not([data-lit])'), `an injected element in ${where}`);
  for (const a of root.querySelectorAll('a')) {
    assert(a.rel === 'noopener noreferrer' && a.target === '_blank', `a link without rel/target in ${where}: ${a.outerHTML}`);
  }
}
