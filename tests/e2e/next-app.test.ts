/**
 * The README's Next.js recipe in a real Next.js app: a minimal App Router app whose `lib/ask-user.ts` and
 * `app/api/[...ask]/route.ts` are the README's two blocks as written (what they leave to the host,
 * `ownsSession` and `myTools`, supplied in front as the package test does), and whose page, a client
 * component, starts a chat and shows the session's pending card with `ask-user-kit/react`. The package is
 * in the app's node_modules as a user has it (package.json and dist/, real files, no link); `next build`
 * then `next start` serve it on a loopback port, the model is a scripted OpenAI-compatible server, and
 * Chromium answers the card until the continuation's `done`. Nothing leaves loopback: telemetry is off,
 * the app loads no fonts, and Chromium records every request it makes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { TEST_BROWSER_COOKIE } from '../helpers/browser-identity.js';
import { freePort } from '../helpers/free-port.js';
import { HOST_TOOL, readmeNextAsConsumer, releaseModelTurn } from '../package/consumer-files.js';
import { launchChromium, type LaunchedBrowser } from './helpers/browser.js';

const root = new URL('../../', import.meta.url).pathname;
const SESSION = 'next-app-1';

/** The page: starts a chat, then shows the session's pending card; what the continuation brings goes on `window`. */
const PAGE_TSX = `'use client';
import { useEffect, useState } from 'react';
import { AskUserCard, AskUserProvider } from 'ask-user-kit/react';
import { fetchPending, startChat, type PendingInteraction } from 'ask-user-kit/widget';

const sessionId = ${JSON.stringify(SESSION)};
declare global {
  interface Window { continued: string[] }
}

export default function Page() {
  const [request, setRequest] = useState<PendingInteraction | null>(null);
  useEffect(() => {
    window.continued = [];
    void (async () => {
      const started = await startChat({ sessionId, message: 'ship it' });
      if (started.ok) for await (const event of started.events) void event;
      setRequest(await fetchPending(sessionId));
    })();
  }, []);
  return (
    <AskUserProvider endpoint="/api" sessionId={sessionId} locale="en">
      {request && (
        <AskUserCard
          request={request}
          noAutofocus
          onAskUserContinued={async (event) => {
            for await (const e of event.detail.events) window.continued.push(e.event === 'done' ? 'done:' + e.data.reason : e.event);
          }}
        />
      )}
    </AskUserProvider>
  );
}
`;

const LAYOUT_TSX = `export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`;

interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Kills the process and everything it started (its own process group). */
  kill(): void;
}

function spawnNext(args: string[], cwd: string, env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, [join(root, 'node_modules/next/dist/bin/next'), ...args], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d));
  child.stderr!.on('data', (d: Buffer) => (output += d));
  return {
    child,
    output: () => output,
    kill() {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    },
  };
}

const exited = (p: Spawned) => new Promise<number | null>((resolve) => p.child.once('close', (code) => resolve(code)));

describe("the README's Next.js recipe in a Next.js app, answered in Chromium", () => {
  let model: ScriptedModel;
  let dir: string;
  let url: string;
  let chromium: LaunchedBrowser;
  const processes: Spawned[] = [];
  const serverOutput = () => processes.at(-1)?.output().slice(-4000) ?? '';

  before(async () => {
    // Inside the repository, so next, react and the package's dependencies resolve from its node_modules; in
    // .data (ignored by git), not node_modules/.cache: Turbopack does not build an app whose pages are
    // inside a node_modules folder (next build 16.5.0 panics: "Expected process result to be a module").
    const cache = join(root, '.data');
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'ask-user-next-'));
    const files: Record<string, string> = {
      ...readmeNextAsConsumer(join(root, 'README.md')),
      'package.json': JSON.stringify({ name: 'next-app', private: true, type: 'module' }),
      'next.config.mjs': `export default ${JSON.stringify({
        // The repository is the root Turbopack resolves from (its node_modules hold next and react).
        turbopack: { root },
        // The package test type-checks the recipe against the tarball; the build only bundles.
        typescript: { ignoreBuildErrors: true },
      })};\n`,
      'app/layout.tsx': LAYOUT_TSX,
      'app/page.tsx': PAGE_TSX,
    };
    delete files['next-host.ts'];
    for (const [file, body] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), body);
    }
    // The package as a user has it: its package.json and its build (npm run build), real files.
    const built = statSync(join(root, 'dist/widget/react.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const newer = ['plugin', 'widget'].flatMap((d) =>
      readdirSync(join(root, d), { recursive: true, encoding: 'utf8' }).filter(
        (f) => f.endsWith('.ts') && !f.includes('node_modules') && statSync(join(root, d, f)).mtimeMs > built,
      ),
    );
    assert.ok(built > 0 && newer.length === 0, `dist/ is missing or older than ${newer[0] ?? 'the sources'}: run npm run build first`);
    const installed = join(dir, 'node_modules/ask-user-kit');
    mkdirSync(installed, { recursive: true });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true });

    model = await startScriptedModel({ fallback: releaseModelTurn });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NEXT_TELEMETRY_DISABLED: '1',
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-next-test',
      ASK_USER_STORE: 'memory',
    };
    const started = Date.now();
    const build = spawnNext(['build'], dir, { ...env, NODE_ENV: 'production' });
    processes.push(build);
    const code = await exited(build);
    assert.equal(code, 0, `next build failed:\n${build.output().slice(-6000)}`);
    console.log(`# next build: ${Date.now() - started} ms`);

    const server = spawnNext(['start', '-p', String(port), '-H', '127.0.0.1'], dir, { ...env, NODE_ENV: 'production' });
    processes.push(server);
    // The server listens on 127.0.0.1, but a route handler's `request.url` says `http://localhost:<port>`
    // whatever the Host header was (Next.js 16 builds it from its own hostname), and the kit's same-origin
    // rule compares the browser's Origin with that URL: the browser uses the name Next.js uses.
    url = `http://localhost:${port}`;
    const ready = Date.now() + 20_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/interactions/pending?sessionId=probe`)
        .then((r) => r.status < 500)
        .catch(() => false);
      if (ok) break;
      assert.ok(server.child.exitCode === null, `next start exited:\n${server.output()}`);
      assert.ok(Date.now() < ready, `next start did not serve in 20 s:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(`# next start serving: ${Date.now() - started} ms after the build began`);
    chromium = await launchChromium();
  });

  after(async () => {
    await chromium?.close();
    for (const p of processes) p.kill();
    await model?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the page starts a chat, shows the pending card, and the answer continues the run to done', async () => {
    const context = await chromium.browser.newContext();
    const [name, value] = TEST_BROWSER_COOKIE.split('=') as [string, string];
    await context.addCookies([{ name, value, url }]);
    const page = await context.newPage();
    const errors: string[] = [];
    const elsewhere: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text())));
    // The app has no icon: the browser's own /favicon.ico request is the one 404 allowed.
    page.on('response', (r) => void (r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${r.url()}`)));
    page.on('request', (r) => void (r.url().startsWith(url) || elsewhere.push(r.url())));
    try {
      await page.goto(`${url}/`);
      const card = page.locator('ask-user-card');
      await card
        .locator('[part~="title"]', { hasText: 'Which build should ship?' })
        .waitFor({ timeout: 20_000 })
        .catch((err: Error) => assert.fail(`no card: ${err.message}\npage: ${errors.join('\n')}\nserver: ${serverOutput()}`));
      await card.locator('[part~="option"]', { hasText: 'Beta' }).locator('[part~="option-label"]').click();
      await card.locator('[part~="submit-button"]').click();
      await card.locator('[part~="receipt"]').waitFor();
      await page.waitForFunction(() => (window as unknown as { continued: string[] }).continued.some((e) => e.startsWith('done')), null, {
        timeout: 20_000,
      });
      const continued = await page.evaluate(() => (window as unknown as { continued: string[] }).continued);
      assert.ok(continued.includes('interaction_resolved') && continued.includes('tool_result'), continued.join(' '));
      assert.equal(continued.at(-1), 'done:completed');
      const last = model.requests.at(-1)!.messages.at(-1)!;
      assert.deepEqual([last.role, last.content], ['tool', HOST_TOOL.output], "the answer continued the run through the host's tool");
      assert.equal(model.requests.length, 3, 'ask, the tool call after the answer, the final answer');
      assert.deepEqual(errors, [], 'no page errors');
      assert.deepEqual(elsewhere, [], 'the page loads nothing from anywhere else');
    } finally {
      await context.close();
    }
  });
});
