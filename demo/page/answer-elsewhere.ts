/**
 * "Answer elsewhere" on an open card (contract §13, answer links; only when the server has them on): the
 * button asks the demo's `POST /api/answer-link` for a new link to this card, then shows it as text and as
 * a QR code for a phone. The link answers this card only, once, without this browser's cookie; it stops
 * working when the card closes, and the panel goes with the button.
 */
import { encodeQR } from 'qr';
import type { PageStrings } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

/** The QR code of `text` as an SVG drawn with the DOM (no markup parsed): dark modules on white, a 4-module quiet zone. */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const modules = encodeQR(text, 'raw', { ecc: 'medium', border: 4 });
  const size = modules.length;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#ffffff');
  const dark = document.createElementNS(SVG, 'path');
  let d = '';
  modules.forEach((row, y) =>
    row.forEach((on, x) => {
      if (on) d += `M${x} ${y}h1v1h-1z`;
    }),
  );
  dark.setAttribute('d', d);
  dark.setAttribute('fill', '#000000');
  svg.append(background, dark);
  return svg;
}

export interface AnswerElsewhereOptions {
  sessionId: () => string;
  requestId: string;
  strings: () => PageStrings;
}

/** The button and, once pressed, the panel with the link and its QR code; `remove()` takes both away. */
export function answerElsewhere({ sessionId, requestId, strings }: AnswerElsewhereOptions): HTMLElement {
  const box = document.createElement('div');
  box.className = 'answer-elsewhere';
  box.dataset.testid = 'answer-elsewhere';
  const button = document.createElement('button');
  button.type = 'button';
  button.dataset.testid = 'answer-elsewhere-button';
  button.dataset.i18n = 'answerElsewhere';
  button.textContent = strings().answerElsewhere;
  button.setAttribute('aria-expanded', 'false');
  const panel = document.createElement('div');
  panel.className = 'answer-elsewhere-panel';
  panel.dataset.testid = 'answer-elsewhere-panel';
  panel.id = `answer-elsewhere-${requestId}`;
  panel.hidden = true;
  button.setAttribute('aria-controls', panel.id);
  box.append(button, panel);

  button.addEventListener('click', async () => {
    if (!panel.hidden) {
      panel.hidden = true;
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    button.disabled = true;
    try {
      const res = await fetch('/api/answer-link', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: sessionId(), requestId }),
      });
      const body = (await res.json().catch(() => ({}))) as { url?: string; error?: { message?: string } };
      if (!res.ok || !body.url) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
      showLink(panel, body.url, strings);
    } catch (err) {
      const p = document.createElement('p');
      p.className = 'answer-elsewhere-error';
      p.setAttribute('role', 'alert');
      p.textContent = `${strings().answerLinkFailed}: ${(err as Error).message}`;
      panel.replaceChildren(p);
    } finally {
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      button.disabled = false;
      panel.scrollIntoView({ block: 'nearest' });
    }
  });
  return box;
}

function showLink(panel: HTMLElement, url: string, strings: () => PageStrings): void {
  const hint = document.createElement('p');
  hint.dataset.i18n = 'answerElsewhereHint';
  hint.textContent = strings().answerElsewhereHint;
  const link = document.createElement('a');
  link.href = url;
  link.target = '_blank';
  link.rel = 'noreferrer noopener';
  link.dataset.testid = 'answer-link';
  link.textContent = url;
  const figure = document.createElement('figure');
  figure.className = 'answer-qr';
  figure.dataset.testid = 'answer-qr';
  const qr = qrSvg(url, strings().qrLabel);
  // Named again in the other language when the page's language changes.
  qr.setAttribute('data-i18n-label', 'qrLabel');
  figure.append(qr);
  panel.replaceChildren(hint, link, figure);
}
