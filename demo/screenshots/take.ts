/**
 * The README's screenshots of the demo page: `node --import tsx demo/screenshots/take.ts`.
 *
 * Builds the page (demo/vite.config.ts), starts the real demo server as a child process on a free port
 * with the memory store and the embedded scripted model (OPENAI_* blanked, so a configured endpoint is
 * never called), drives Debian's Chromium through playwright-core and writes the PNGs next to this file,
 * re-encoded losslessly (png-recompress.ts) to keep them small.
 * Everything is the real page and server; only what is typed is chosen here. Set SHOTS_DIR to write
 * elsewhere (e.g. to compare without touching the committed images).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { build } from 'vite';
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { startDemoServer } from '../../tests/helpers/demo-server.js';
import { launchChromium } from '../../tests/e2e/helpers/browser.js';
import { recompressPng } from './png-recompress.js';

const OUT = process.env.SHOTS_DIR ?? fileURLToPath(new URL('.', import.meta.url));
const VIEWPORT = { width: 1100, height: 800 };
const TRACE_VIEWPORT = { width: 1100, height: 720 };
/** What the README shows; a PNG above this is a sign something (a gradient, noise) went wrong. */
const MAX_BYTES = 150 * 1024;

const card = (page: Page): Locator => page.locator('ask-user-card').last();
const option = (c: Locator, label: string) => c.locator('[part~="option"]', { hasText: label }).locator('[part~="control"]');

async function openPage(browser: Browser, url: string, options: BrowserContextOptions & { lang: 'zh' | 'en' }): Promise<Page> {
  const { lang, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, ...contextOptions });
  await context.addInitScript((l) => localStorage.setItem('ask-user-demo.lang', l), lang);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

async function send(page: Page, message: string): Promise<void> {
  await page.fill('[data-testid="message-input"]', message);
  await page.click('[data-testid="send-button"]');
}

/** Sends `message` and waits until the run paused on the question it asked; returns that card. */
async function ask(page: Page, message: string) {
  await send(page, message);
  const asked = card(page);
  await asked.locator('[part~="form"]').waitFor();
  await page.locator('[data-testid="run-status"]', { hasText: 'paused' }).waitFor();
  return asked;
}

/** Scrolls the chat so the bottom of the transcript (the newest card or reply) is in view. */
async function showEnd(page: Page): Promise<void> {
  await page.evaluate(() => {
    const log = document.querySelector('#log')!;
    log.scrollTop = log.scrollHeight;
  });
}

const oversized: string[] = [];

async function shoot(page: Page, name: string): Promise<void> {
  // Caret blink and focus rings would make each run's image differ; neither says anything here.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const shot = await page.screenshot({ caret: 'hide', animations: 'disabled' });
  const png = recompressPng(shot);
  await writeFile(join(OUT, name), png);
  const size = png.length;
  console.log(`${name}  ${(size / 1024).toFixed(1)} KB (Chromium wrote ${(shot.length / 1024).toFixed(1)} KB)`);
  if (size > MAX_BYTES) oversized.push(`${name} (${size} bytes)`);
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  await build({ configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)), logLevel: 'warn' });
  const server = await startDemoServer({
    env: { ASK_USER_STORE: 'memory', ASK_USER_TRACE: '1', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', OPENAI_MODEL: '' },
  });
  const chromium = await launchChromium();
  try {
    // (a) zh-CN: the tests question, multiple choice with "其他说明" filled in, before submitting.
    const zh = await openPage(chromium.browser, server.url, { lang: 'zh', locale: 'zh-CN', colorScheme: 'light' });
    const tests = await ask(zh, '发布前要跑哪些测试？');
    await option(tests, 'Unit').check();
    await option(tests, 'End-to-end').check();
    await tests.locator('[part~="custom-input"]').fill('e2e 只跑 Chromium，跳过 Redis 双实例');
    await showEnd(zh);
    await shoot(zh, 'zh-multiple-other.png');

    // (b) The receipt, the assistant's reply quoting the answer, and the run completed.
    await tests.locator('[part~="submit-button"]').click();
    await zh.locator('[data-testid="assistant-text"]', { hasText: '收到，你选了' }).waitFor();
    await zh.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
    await tests.locator('[part~="receipt-note"][data-run="completed"]').waitFor();
    await showEnd(zh);
    await shoot(zh, 'zh-receipt-completed.png');

    // (c) The developer panel with the raw SSE of both streams (message_delta hidden, as by default). A bit
    // shorter: the panel is dense text, and at full height the PNG runs past the README's size budget.
    await zh.setViewportSize(TRACE_VIEWPORT);
    await zh.click('[data-testid="trace-toggle"]');
    await zh.locator('[data-testid="trace-lines"]', { hasText: 'event: tool_result' }).waitFor();
    await zh.locator('[data-testid="trace-lines"]', { hasText: 'event: done' }).waitFor();
    await zh.evaluate(() => {
      // Start the panel, on a line boundary, at the block that ended the chat stream (done paused): below
      // it the answer's audit line and the whole continuation stream.
      const pre = document.querySelector<HTMLElement>('#trace-lines')!;
      const text = pre.firstChild as Text;
      const end = text.data.indexOf('event: interaction_resolved');
      const paused = text.data.lastIndexOf('event: done', end);
      const block = text.data.lastIndexOf('\n[', paused) + 1;
      const range = document.createRange();
      range.setStart(text, block);
      range.setEnd(text, block + 1);
      pre.scrollTop += range.getBoundingClientRect().top - pre.getBoundingClientRect().top;
    });
    await showEnd(zh);
    await shoot(zh, 'zh-trace-panel.png');

    // (d) en, dark colour scheme: the toggle question with two switches on.
    const en = await openPage(chromium.browser, server.url, { lang: 'en', locale: 'en-US', colorScheme: 'dark' });
    const features = await ask(en, 'Which features should I enable?');
    await option(features, 'New search').check();
    await option(features, 'Audit log').check();
    await showEnd(en);
    await shoot(en, 'en-dark-toggle.png');
  } finally {
    await chromium.close();
    await server.stop();
  }
  if (oversized.length) {
    throw Object.assign(new Error(`over ${MAX_BYTES} bytes: ${oversized.join(', ')}; use a smaller viewport or a clip`), {
      code: 'screenshot_too_large',
    });
  }
}

main().catch((err) => {
  console.error(`screenshots failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
});
