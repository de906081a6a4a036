/**
 * README.md's "## The widget" snippet must work as written. The ```html block is read from the README at
 * test time (so the docs cannot drift from what is tested), put unchanged into the body of a page, and
 * served with the freshly built bundle next to it by the real demo app (`createDemoApp`: the plugin's
 * routes, the agent loop, the embedded scripted assistant `npm run demo` uses without OPENAI_BASE_URL).
 * Chromium opens it at 375 px, answers the card the model asked for, and the test checks what a reader
 * of the README expects: the card speaks the provider's locale, a real POST /api/chat/continue leaves the
 * page and is accepted, and the snippet's `ask-user-continued` handler reads the continuation to its end.
 *
 * Twice: with ask-user-kit.standalone.js as the snippet names it, and with the ES module ask-user-kit.js
 * in its place (its bare `lit` / `@lit/context` imports resolved by an import map to the installed packages).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ConsoleMessage, Request } from 'playwright-core';
import { createDemoApp } from '../../demo/app.js';
import { SCRIPTED_MODEL_NAME, startScriptedAssistant } from '../../demo/scripted-model/index.js';
import { memoryAuditLogger } from '../../plugin/core/audit.js';
import { openStore } from '../../plugin/store/index.js';
import { STRINGS } from '../../widget/strings.js';
import { launchChromium, type LaunchedBrowser } from './helpers/browser.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WIDGET_DIST = join(ROOT, 'dist/widget');
const STANDALONE = 'ask-user-kit.standalone.js';
const MODULE = 'ask-user-kit.js';

/** The ```html block of README.md's "## The widget" section, verbatim. */
function readmeWidgetSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('The widget\n'));
  assert.ok(section, 'README.md has a "## The widget" section');
  const block = /^```html\n([^]*?)^```/m.exec(section);
  assert.ok(block, 'the "## The widget" section has an ```html block');
  return block[1]!;
}

/** The provider's locale as the snippet sets it: what the card must speak. */
function snippetLocale(snippet: string): 'en' | 'zh-CN' {
  const m = /<ask-user-provider\b[^>]*\blocale="([^"]+)"/.exec(snippet);
  assert.ok(m, 'the snippet sets locale on <ask-user-provider>');
  return /^en\b/i.test(m[1]!) ? 'en' : 'zh-CN';
}

/** The installed lit packages the ES module imports, by bare specifier. */
const IMPORT_MAP = {
  imports: {
    lit: '/node_modules/lit/index.js',
    'lit/': '/node_modules/lit/',
    'lit-html': '/node_modules/lit-html/lit-html.js',
    'lit-html/': '/node_modules/lit-html/',
    'lit-element/': '/node_modules/lit-element/',
    '@lit/reactive-element': '/node_modules/@lit/reactive-element/reactive-element.js',
    '@lit/reactive-element/': '/node_modules/@lit/reactive-element/',
    '@lit/context': '/node_modules/@lit/context/index.js',
  },
};

/** The files a bundle loads: itself, its lazily loaded chunks, and the Markdown chunk both share. */
function ownFile(bundle: typeof STANDALONE | typeof MODULE, file: string): boolean {
  if (file === 'ask-user-kit.markdown.js') return true;
  const standalone = file === STANDALONE || file.startsWith('ask-user-kit.standalone-');
  return file.startsWith('ask-user-kit.') && file.endsWith('.js') && (bundle === STANDALONE) === standalone;
}

/** A page whose body is the snippet; for the ES module, the snippet's file name swapped and an import map. */
function writePage(dir: string, snippet: string, bundle: typeof STANDALONE | typeof MODULE): void {
  const body = bundle === STANDALONE ? snippet : snippet.replaceAll(STANDALONE, MODULE);
  if (bundle === MODULE) assert.notEqual(body, snippet, 'the snippet names the standalone bundle');
  const head = bundle === MODULE ? `<script type="importmap">${JSON.stringify(IMPORT_MAP)}</script>` : '';
  writeFileSync(
    join(dir, 'index.html'),
    `<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>README widget snippet</title>\n${head}\n</head>\n<body>\n${body}\n</body>\n</html>\n`,
  );
  // As the README says to serve them: the bundle with its own chunks and the shared Markdown chunk beside it.
  for (const file of readdirSync(WIDGET_DIST).filter((f) => ownFile(bundle, f))) copyFileSync(join(WIDGET_DIST, file), join(dir, file));
  if (bundle === MODULE) {
    for (const pkg of ['lit', 'lit-html', 'lit-element', '@lit/reactive-element', '@lit/context']) {
      mkdirSync(dirname(join(dir, 'node_modules', pkg)), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules', pkg), join(dir, 'node_modules', pkg), 'dir');
    }
  }
}

/** The real demo app on loopback, serving `staticDir`, with the embedded scripted assistant as its model. */
async function startDemo(staticDir: string) {
  const assistant = await startScriptedAssistant();
  const store = await openStore('memory');
  const client = new OpenAI({ baseURL: assistant.baseURL, apiKey: 'not-needed', maxRetries: 0 });
  const demo = await createDemoApp({ store, client, model: SCRIPTED_MODEL_NAME, staticDir, audit: memoryAuditLogger(), trace: true });
  const server: Server = await new Promise((resolve) => {
    const s = createServer(demo.listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    demo,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await demo.close();
      await store.close();
      await assistant.close();
    },
  };
}

const CJK = /[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]/;

describe("README.md's widget snippet, as written, in Chromium at 375 px", () => {
  let chromium: LaunchedBrowser;
  let snippet: string;

  before(async () => {
    // The bundles as the sources make them now, not a stale dist/.
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    snippet = readmeWidgetSnippet();
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
  });

  for (const bundle of [STANDALONE, MODULE] as const) {
    it(`with ${bundle}: the card speaks the provider's locale and the answer is sent`, async () => {
      const dir = await makeTempDir('ask-user-readme-');
      writePage(dir.path, snippet, bundle);
      const server = await startDemo(dir.path);
      const context = await chromium.browser.newContext({ viewport: { width: 375, height: 740 } });
      try {
        const page = await context.newPage();
        const pageErrors: string[] = [];
        page.on('pageerror', (e) => pageErrors.push(String(e)));
        const logged: unknown[] = [];
        page.on('console', (msg: ConsoleMessage) => {
          if (msg.type() !== 'log') return;
          void msg
            .args()[0]
            ?.jsonValue()
            .then(
              (v) => logged.push(v),
              () => {},
            );
        });
        const continues: Request[] = [];
        page.on('request', (r) => {
          if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat/continue') continues.push(r);
        });

        await page.goto(`${server.url}/`);
        const card = page.locator('ask-user-card');
        await card.locator('form').waitFor({ timeout: 15_000 });
        const mode = await card.evaluate((el) => (el as HTMLElement & { request?: { mode?: string } }).request?.mode);

        const locale = snippetLocale(snippet);
        const strings = STRINGS[locale];
        const formText = await card.evaluate((el) => el.shadowRoot!.querySelector('form')!.innerText);
        if (locale === 'en') assert.doesNotMatch(formText, CJK, `the card is in English (provider locale="en"); it shows:\n${formText}`);

        // Answer whatever the model asked, as a user would.
        if (mode === 'single' || mode === 'multiple' || mode === 'toggle') await card.locator('[part~="control"]').first().check();
        else if (mode === 'date') await card.locator('[part~="field"]').fill('2030-06-03');
        else if (mode === 'number') await card.locator('[part~="field"]').fill('3');
        else await card.locator('[part~="field"]').fill(mode === 'directory' ? 'build/reports' : 'release-train');
        const sent = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/chat/continue', {
          timeout: 10_000,
        });
        await card.locator('[part~="submit-button"]').click();
        const request = await sent.catch(async () => {
          const shown = await card.evaluate((el) => el.shadowRoot!.textContent!.replace(/\s+/g, ' ').trim());
          assert.fail(`no POST /api/chat/continue left the page after submit; the card shows: ${shown}`);
        });

        const body = request.postDataJSON() as { sessionId: string; requestId: string; cancelled: boolean };
        const requestId = await card.evaluate((el) => (el as HTMLElement & { request?: { id?: string } }).request?.id);
        assert.equal(body.sessionId, 'sess-1', "the provider's session-id");
        assert.equal(body.requestId, requestId, "the card's request");
        assert.equal(body.cancelled, false);
        const response = await request.response();
        assert.equal(response?.status(), 200, 'the server accepted the answer');
        assert.equal(continues.length, 1, 'one continue request');

        const status = card.locator('[part~="receipt-status"]');
        await status.waitFor({ timeout: 10_000 });
        assert.equal((await status.innerText()).trim(), strings.receiptAnswered, `receipt in the provider's locale (${locale})`);
        // The snippet's ask-user-continued handler logs the continuation's events, through to its done.
        const deadline = Date.now() + 15_000;
        const isDone = (v: unknown) => (v as { event?: string } | null)?.event === 'done';
        while (!logged.some(isDone) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.ok(logged.some(isDone), `the snippet logged the continuation through to done; logged: ${JSON.stringify(logged)}`);
        // The snippet tells the card how the run ended: its receipt no longer says "continuing".
        const reason = (logged.find(isDone) as { data: { reason: 'completed' | 'paused' | 'cancelled' | 'error' } }).data.reason;
        const ended = {
          completed: strings.runCompleted,
          paused: strings.runPaused,
          cancelled: strings.runCancelled,
          error: strings.runError,
        };
        const note = await card.locator('[part~="receipt-note"]').elementHandle();
        await page.waitForFunction(([el, text]) => (el as HTMLElement).innerText.trim() === text, [note, ended[reason]] as const, {
          timeout: 10_000,
        });
        assert.deepEqual(pageErrors, [], 'no errors on the page');
        // The server's own record: the answer it accepted is the one the card sent.
        const traced = server.demo
          .trace!.get('sess-1')
          .filter((l) => l.stream === 'continue')
          .map((l) => l.text)
          .join('\n');
        assert.match(traced, /event: interaction_resolved\n.*"status":"answered"/, 'the server resolved the interaction with this answer');
      } finally {
        await context.close();
        await server.close();
        await dir.remove();
      }
    });
  }
});
