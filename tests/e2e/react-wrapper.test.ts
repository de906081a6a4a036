/**
 * `ask-user-kit/react` in a real React page in Chromium: a page built with Vite (as a React app is) renders
 * `<AskUserProvider>` and `<AskUserCard>` from the wrapper, restores the session's pending question from the
 * real demo server, and the user answers it. The typed callbacks receive the card's events: the submit's
 * answer, and the continuation's events through to `done`; the provider's endpoint and session reach the
 * card as element properties.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'vite';
import OpenAI from 'openai';
import { createDemoApp } from '../../demo/app.js';
import { SOURCE_ENTRIES } from '../../demo/source-entries.js';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { askSingle } from '../helpers/ask-calls.js';
import { TEST_BROWSER_COOKIE } from '../helpers/browser-identity.js';
import { launchChromium, type LaunchedBrowser } from './helpers/browser.js';
import { memoryAuditLogger, openStore } from '../../plugin/index.js';

/** The page: the wrapper's components, fed the pending question; what the callbacks receive goes on `window`. */
const PAGE_SCRIPT = `
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { fetchPending } from 'ask-user-kit/widget';
import { AskUserCard, AskUserProvider } from 'ask-user-kit/react';

const seen = (window.seen = { submitted: [], continued: [], provider: null });
const request = await fetchPending('react-1', { endpoint: '/api' });
function App() {
  return h(
    AskUserProvider,
    { endpoint: '/api', sessionId: 'react-1', locale: 'en' },
    h(AskUserCard, {
      request,
      noAutofocus: true,
      onAskUserSubmit: (event) => seen.submitted.push({ selections: event.detail.selections, cancelled: event.detail.cancelled }),
      onAskUserContinued: async (event) => {
        for await (const e of event.detail.events) seen.continued.push(e.event);
      },
    }),
  );
}
createRoot(document.getElementById('root')).render(h(App));
window.ready = true;
`;

describe('ask-user-kit/react in a React page, in Chromium', () => {
  let model: ScriptedModel;
  let dir: string;
  let server: Server;
  let url: string;
  let chromium: LaunchedBrowser;
  let closeDemo: () => Promise<void>;

  before(async () => {
    // Inside node_modules/.cache, so the page's imports of react and react-dom resolve as in an app.
    const cache = new URL('../../node_modules/.cache/', import.meta.url).pathname;
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'ask-user-react-'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><html lang="en"><body><div id="root"></div><script type="module" src="./main.js"></script></body></html>',
    );
    writeFileSync(join(dir, 'main.js'), PAGE_SCRIPT);
    // A React app's build: Vite turns React's CommonJS into modules; the kit's entries come from their sources.
    await build({
      root: dir,
      configFile: false,
      logLevel: 'warn',
      resolve: { alias: SOURCE_ENTRIES },
      oxc: {
        decorator: { legacy: true },
        assumptions: { setPublicClassFields: true },
        typescript: { removeClassFieldsWithoutInitializer: true },
      },
      build: { outDir: join(dir, 'dist'), target: 'es2022', emptyOutDir: true },
    });
    model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_react')] }, { text: 'Going the safe way.' }] });
    const store = await openStore('memory');
    const demo = await createDemoApp({
      store,
      client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
      model: 'm',
      staticDir: join(dir, 'dist'),
      audit: memoryAuditLogger(),
      heartbeatMs: 0,
    });
    server = createServer(demo.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeDemo = async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await demo.close();
      await store.close();
    };
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await closeDemo?.();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the card is answered through the wrapper, and its typed callbacks get the answer and the continuation', async () => {
    // The question the page restores: asked by a chat of the same browser (its owner cookie).
    const chat = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: 'react-1', message: 'go' }),
    });
    assert.equal(chat.status, 200);
    await chat.text();

    const context = await chromium.browser.newContext();
    const [name, value] = TEST_BROWSER_COOKIE.split('=') as [string, string];
    await context.addCookies([{ name, value, url }]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(`${url}/`);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
      const card = page.locator('ask-user-card');
      await card.locator('[part~="title"]').waitFor();
      // The provider's props reached the element as properties, not attributes.
      const provided = await page.evaluate(() => {
        const provider = document.querySelector('ask-user-provider') as HTMLElement & { endpoint?: string; sessionId?: string };
        return [provider.endpoint, provider.sessionId];
      });
      assert.deepEqual(provided, ['/api', 'react-1']);

      await card.locator('[part~="option"]', { hasText: 'Analyse first' }).locator('[part~="option-label"]').click();
      await card.locator('[part~="submit-button"]').click();
      await card.locator('[part~="receipt"]').waitFor();
      await page.waitForFunction(() => (window as unknown as { seen: { continued: string[] } }).seen.continued.includes('done'), null, {
        timeout: 15_000,
      });
      const seen = await page.evaluate(() => (window as unknown as { seen: { submitted: unknown[]; continued: string[] } }).seen);
      assert.deepEqual(seen.submitted, [{ selections: ['safe'], cancelled: false }]);
      assert.ok(seen.continued.includes('interaction_resolved') && seen.continued.includes('tool_result'), seen.continued.join(' '));
      assert.equal(seen.continued.at(-1), 'done');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
