/**
 * The page of a one-card answer link (contract §13): that card and nothing else of the session. It loads
 * the host's widget script, gives the card its request, and answers through continue with the link's
 * token in place of the owner's credentials (no cookie sent). Served with `no-store`, `no-referrer`,
 * `noindex` and a content security policy that lets only the widget and the page's own bootstrap run.
 */
import { randomBytes } from 'node:crypto';
import type { UserInputRequired } from '../contract/schema.js';

export interface AnswerPageInput {
  /** The card, as `user_input_required` carries it. */
  request: UserInputRequired;
  token: string;
  /** Where the card posts: `{prefix}/chat/continue`. */
  continuePath: string;
  widgetScript: string;
  locale: 'zh-CN' | 'en';
}

/** Headers of every answer-link page, its refusals included. */
export function answerPageHeaders(nonce: string, widgetScript: string): Record<string, string> {
  const widgetOrigin = /^https?:\/\//i.test(widgetScript) ? ` ${new URL(widgetScript).origin}` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'self' 'nonce-${nonce}'${widgetOrigin}`,
      // Lit's styles; the card's Markdown and approval chunks load beside the widget script.
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

export const newNonce = () => randomBytes(16).toString('base64');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON that is safe inside a `<script>` element: no `<`, no line separators. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const WORDS = {
  'zh-CN': {
    closed: '这个问题已经关闭',
    invalid: '这个链接无效或已被使用',
    why: { answered: '已经回答', cancelled: '已取消', expired: '已过期', superseded: '已被新的消息取代' },
  },
  en: {
    closed: 'This question is closed',
    invalid: 'This link is not valid, or it was used',
    why: {
      answered: 'It was answered.',
      cancelled: 'It was cancelled.',
      expired: 'It expired.',
      superseded: 'A newer message replaced it.',
    },
  },
} as const;

export type ClosedReason = keyof (typeof WORDS)['en']['why'];

function page(locale: AnswerPageInput['locale'], title: string, body: string): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>body{margin:0;padding:16px;font-family:system-ui,sans-serif;background:#f6f7f9;color:#111}main{max-width:640px;margin:0 auto}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The page with the card. */
export function answerPage(input: AnswerPageInput, nonce: string): string {
  const { request, token, continuePath, widgetScript, locale } = input;
  const data = scriptJson({ request, token, continueUrl: continuePath });
  const bootstrap = `
const data = JSON.parse(document.getElementById('ask-user-answer').textContent);
await customElements.whenDefined('ask-user-card');
const card = document.querySelector('ask-user-card');
card.request = data.request;
card.addEventListener('ask-user-submit', async (event) => {
  event.preventDefault();
  const d = event.detail;
  const body = { sessionId: d.sessionId, requestId: d.requestId, cancelled: d.cancelled, answerToken: data.token };
  if (d.decisions !== undefined) body.decisions = d.decisions;
  else if (d.answers !== undefined) body.answers = d.answers;
  else { body.selections = d.selections; body.customInput = d.customInput; }
  try {
    const res = await fetch(data.continueUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit' });
    if (res.ok) { card.markSubmitted(); await res.body?.cancel(); }
    else card.showError({ status: res.status, ...(await res.json().catch(() => ({}))) });
  } catch (error) { card.showError(error); }
});`;
  return page(
    locale,
    request.title,
    // The page's one heading, for screen readers: the card draws its own title.
    `<h1 class="visually-hidden">${escapeHtml(request.title)}</h1>
<ask-user-card locale="${locale}"></ask-user-card>
<script type="application/json" id="ask-user-answer">${data}</script>
<script type="module" src="${escapeHtml(widgetScript)}"></script>
<script type="module" nonce="${nonce}">${bootstrap}
</script>`,
  );
}

/** The page of a link whose card closed (410): why, and nothing of the card. */
export function closedPage(locale: AnswerPageInput['locale'], reason: ClosedReason): string {
  const w = WORDS[locale];
  return page(locale, w.closed, `<h1>${w.closed}</h1>\n<p>${w.why[reason]}</p>`);
}

/** The page of a token that opens nothing (404). */
export function invalidPage(locale: AnswerPageInput['locale']): string {
  const w = WORDS[locale];
  return page(locale, w.invalid, `<h1>${w.invalid}</h1>`);
}
