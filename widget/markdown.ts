/**
 * The Markdown subset of docs/protocol.md §9.3, turned into sanitized DOM. Loaded lazily (rich-text.ts):
 * a card whose text has no Markdown never downloads micromark or DOMPurify. It imports nothing from the
 * rest of the widget but its bounds on work (markdown-limits.ts), so the ES build's chunk stands alone and
 * the standalone file can load the same file.
 */
import { micromark, type Options } from 'micromark';
import DOMPurify from 'dompurify';
import { boundedMarkdown } from './markdown-limits.js';

/**
 * CommonMark constructs outside the subset: switched off, their characters stay literal text. Character
 * references stay off too, so `&lt;` shows as typed, as in a plain-text title.
 */
const OFF = [
  'autolink',
  'blockQuote',
  'characterReference',
  'codeIndented',
  'definition',
  'headingAtx',
  'htmlFlow',
  'htmlText',
  'setextUnderline',
  'thematicBreak',
];
// Built by markdown-limits.ts as micromark's options; typed there without naming micromark.
const OPTIONS = boundedMarkdown(OFF) as Options;

/** The subset's elements, and the only attributes they may keep (`start` keeps a list's first number). */
const TAGS = ['p', 'em', 'strong', 'code', 'pre', 'ul', 'ol', 'li', 'a', 'br'];
const ATTRS = ['href', 'start'];
const HTTP = /^https?:/i;

// Our own instance, so the hook never reaches a host's copy of DOMPurify.
const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.localName !== 'a') return;
  // DOMPurify's URI check already keeps only http(s); this repeats it, in case a config change loosens it.
  if (!HTTP.test(node.getAttribute('href') ?? '')) node.removeAttribute('href');
  else {
    node.setAttribute('rel', 'noopener noreferrer');
    node.setAttribute('target', '_blank');
  }
});

// An image shows as the text that asked for it; disabling micromark's image syntax would leave a link.
purify.addHook('uponSanitizeElement', (node, data) => {
  if (data.tagName !== 'img' || !(node instanceof Element)) return;
  node.replaceWith(`![${node.getAttribute('alt') ?? ''}](${node.getAttribute('src') ?? ''})`);
});

/** `text` as sanitized nodes of the subset. A link without an http(s) target becomes its text. */
export function renderMarkdown(text: string): DocumentFragment {
  // micromark escapes raw HTML and drops dangerous link protocols itself; DOMPurify checks its output again.
  const html = micromark(text, OPTIONS)
    // Newlines between blocks would show as blank lines under `white-space: pre-wrap`, which keeps the
    // model's line breaks inside a paragraph. Code is escaped, so `>\n<` only ever sits between tags.
    .replace(/>\n</g, '><');
  const fragment = purify.sanitize(html, {
    ALLOWED_TAGS: TAGS,
    ALLOWED_ATTR: ATTRS,
    ALLOWED_URI_REGEXP: HTTP,
    // A list's number is not a URI: without this the http(s) rule above would drop it.
    ADD_URI_SAFE_ATTR: ['start'],
    RETURN_DOM_FRAGMENT: true,
  });
  for (const a of fragment.querySelectorAll('a:not([href])')) a.replaceWith(a.textContent ?? '');
  return fragment;
}
