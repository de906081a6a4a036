/**
 * The chat page as a user drives it: the real demo page (demo/dist, built from demo/page by
 * tests/run-e2e.sh). With `E2E_STAND_IN=1` a stand-in page (tests/e2e/stand-in-page) doing the same with
 * the widget's public bundle is routed in instead — for running the suite while the demo page is broken
 * or unbuilt, never silently. Everything inside the card is reached through the widget's `part` names.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STAND_IN = fileURLToPath(new URL('../stand-in-page/', import.meta.url));
const WIDGET_BUNDLE = `${ROOT}dist/widget/ask-user-kit.standalone.js`;

/** Selectors the suite relies on; the demo page is asked to carry the same `data-testid`s. */
export const SEL = {
  input: '[data-testid="message-input"]',
  send: '[data-testid="send-button"]',
  assistant: '[data-testid="assistant-text"]',
  runStatus: '[data-testid="run-status"]',
  card: 'ask-user-card',
} as const;

export type PageKind = 'demo' | 'stand-in';

/** Whether the server serves the built demo page; otherwise the stand-in is routed into `context`. */
export async function preparePage(context: BrowserContext, serverUrl: string): Promise<PageKind> {
  if (process.env.E2E_STAND_IN !== '1') {
    const res = await fetch(`${serverUrl}/`).catch(() => undefined);
    const html = res ? await res.text() : '';
    if (res?.ok && html.includes('message-input')) return 'demo';
    throw new Error(
      `the demo server does not serve the demo page (GET / → ${res?.status ?? 'no answer'}: ${html.slice(0, 160)}); ` +
        'build it with "npx vite build -c demo/vite.config.ts" (tests/run-e2e.sh does), or set E2E_STAND_IN=1 to use the stand-in page',
    );
  }
  if (!existsSync(WIDGET_BUNDLE)) throw new Error(`no demo page is built and ${WIDGET_BUNDLE} is missing: run "npx vite build" first`);
  const origin = new URL(serverUrl).origin;
  const files: Record<string, [string, string]> = {
    '/': [`${STAND_IN}index.html`, 'text/html; charset=utf-8'],
    '/__e2e/stand-in-page.js': [`${STAND_IN}stand-in-page.js`, 'text/javascript; charset=utf-8'],
    '/__e2e/ask-user-kit.js': [WIDGET_BUNDLE, 'text/javascript; charset=utf-8'],
  };
  await context.route(
    (url) => url.origin === origin && url.pathname in files,
    async (route) => {
      const [file, type] = files[new URL(route.request().url()).pathname]!;
      await route.fulfill({ status: 200, contentType: type, body: await readFile(file) });
    },
  );
  return 'stand-in';
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
    // Both pages set data-ready once the history and the pending card are restored.
    await this.page.waitForSelector('body[data-ready="true"]');
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.locator(SEL.input).waitFor({ state: 'visible' });
    // Both pages set data-ready once the history and the pending card are restored.
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
