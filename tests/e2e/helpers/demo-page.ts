/**
 * The chat page as a user drives it: the real demo page (demo/dist, built from demo/page by
 * tests/run-e2e.sh). Everything inside the card is reached through the widget's `part` names.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';

/** Selectors the suite relies on; the demo page carries the same `data-testid`s. */
export const SEL = {
  input: '[data-testid="message-input"]',
  send: '[data-testid="send-button"]',
  assistant: '[data-testid="assistant-text"]',
  runStatus: '[data-testid="run-status"]',
  card: 'ask-user-card',
} as const;

export type PageKind = 'demo';

/** Fails with what to do when the server does not serve the built demo page. */
export async function preparePage(_context: BrowserContext, serverUrl: string): Promise<PageKind> {
  const res = await fetch(`${serverUrl}/`).catch(() => undefined);
  const html = res ? await res.text() : '';
  if (res?.ok && html.includes('message-input')) return 'demo';
  throw new Error(
    `the demo server does not serve the demo page (GET / → ${res?.status ?? 'no answer'}: ${html.slice(0, 160)}); ` +
      'build it with "npx vite build -c demo/vite.config.ts" (tests/run-e2e.sh does)',
  );
}

export class ChatPage {
  constructor(
    readonly page: Page,
    readonly url: string,
    readonly kind: PageKind,
  ) {}

  async open(query = ''): Promise<void> {
    await this.page.goto(`${this.url}/${query}`);
    await this.page.locator(SEL.input).waitFor({ state: 'visible' });
    // The page sets data-ready once the history and the pending card are restored.
    await this.page.waitForSelector('body[data-ready="true"]');
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.locator(SEL.input).waitFor({ state: 'visible' });
    // The page sets data-ready once the history and the pending card are restored.
    await this.page.waitForSelector('body[data-ready="true"]');
  }

  async send(message: string): Promise<void> {
    await this.page.locator(SEL.input).fill(message);
    await this.page.locator(SEL.send).click();
  }

  /** The card of `requestId`, or the last card on the page. */
  card(requestId?: string): Locator {
    const all = this.page.locator(SEL.card);
    return requestId ? this.page.locator(`${SEL.card}[data-request-id="${requestId}"]`) : all.last();
  }

  /** Waits until an open form (not a receipt) is shown in the last card. */
  async openCard(): Promise<Locator> {
    const card = this.card();
    await card.locator('[part~="form"]').waitFor({ state: 'visible' });
    return card;
  }

  async assistantText(): Promise<string> {
    return (await this.page.locator(SEL.assistant).allTextContents()).join('\n');
  }

  /** Waits for assistant text containing `needle`. */
  async waitForAssistant(needle: string, timeout = 15_000): Promise<void> {
    await this.page.locator(SEL.assistant, { hasText: needle }).first().waitFor({ state: 'visible', timeout });
  }
}

/** The option row control labelled `label` inside a card. */
export const option = (card: Locator, label: string) => card.locator('[part~="option"]', { hasText: label }).locator('[part~="control"]');
export const receipt = (card: Locator) => card.locator('[part~="receipt"]');
