/**
 * For the tests where the order of definition and insertion is the point (a card upgraded before any
 * provider exists, two bundles on one page): nothing here imports or defines an element, so each test file
 * decides what is defined when. Works on cards from the sources and from the built bundles alike.
 */
import { frame, streamResponse } from './sse-fixtures.js';
import { until } from './expect.js';

/** What a card looks like from outside, whichever copy defined it. */
export type AnyCard = HTMLElement & {
  request?: unknown;
  locale?: string;
  updateComplete: Promise<boolean>;
  markSubmitted(at?: string | Date): void;
};

let counter = 0;

/** A single-choice request WITHOUT a sessionId, so the session must come from the provider. */
export function sessionlessRequest(title = 'How should I proceed?') {
  counter++;
  return {
    id: `ask_late${String(counter).padStart(4, '0')}${'L'.repeat(14)}`,
    toolCallId: `call_late_${counter}`,
    title,
    mode: 'single',
    options: [
      { id: 'safe', label: 'Analyse first', recommended: true },
      { id: 'implement', label: 'Implement now' },
    ],
    expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
    resumable: true,
  };
}

export interface Sent {
  url: string;
  body: { sessionId?: string; requestId?: string; selections?: string[] };
}

/** A `fetch` that records each call and accepts it with a short continuation stream. */
export function recordingFetch() {
  const sent: Sent[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body ?? 'null')) as Sent['body'];
    sent.push({ url: String(input), body });
    return streamResponse([
      frame('interaction_resolved', {
        requestId: body.requestId,
        toolCallId: 'call',
        status: 'answered',
        at: new Date().toISOString(),
        selections: body.selections ?? [],
        customInputLength: 0,
      }),
      frame('done', { reason: 'completed' }),
    ]).response;
  }) as typeof fetch;
  return { fn, sent };
}

export const shadow = (card: AnyCard): ShadowRoot => {
  if (!card.shadowRoot) throw new Error(`<${card.localName}> has no shadow root: it was never upgraded`);
  return card.shadowRoot;
};

/** Visible text of the first match in the card, whitespace collapsed ('' when absent). */
export const partText = (card: AnyCard, selector: string): string =>
  shadow(card).querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

/** Checks the first option and presses submit, as a user would. */
export async function answerFirstOption(card: AnyCard): Promise<void> {
  const radio = shadow(card).querySelector<HTMLInputElement>('input[type="radio"]');
  if (!radio) throw new Error(`no option to choose; the card holds: ${shadow(card).innerHTML.slice(0, 300)}`);
  radio.click();
  await card.updateComplete;
  shadow(card).querySelector<HTMLButtonElement>('[part~="submit-button"]')!.click();
  await card.updateComplete;
}

/** Waits until the card's submit button says `label` (the locale's `submit` string). */
export const untilSubmitLabel = (card: AnyCard, label: string, what: string) =>
  until(() => partText(card, '[part~="submit-button"]') === label, `${what}: a submit button saying "${label}"`);

/** Parses `html` into `document.body` the way the parser puts static markup there: before any upgrade. */
export function staticMarkup(html: string): void {
  const template = document.createElement('template');
  template.innerHTML = html;
  document.body.append(template.content);
}
