/**
 * A session's question is readable and answerable only by the browser that owns it. The real demo
 * server (`demo/server.ts`) as a child process; Chromium contexts are separate browsers (cookie jars).
 * A second browser, a plain HTTP client without the cookie, an attacker's page on another site, and a
 * request carrying the owner's cookie but a foreign Origin are all refused, and learn nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, type LaunchedBrowser } from './helpers/browser.js';
import { startDemoProcess, type DemoProcess } from './helpers/demo-process.js';
import { ChatPage, SEL } from './helpers/demo-page.js';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { OWNER_COOKIE } from '../../demo/session-owners.js';

const QUESTION = {
  title: 'Which secret plan?',
  mode: 'single',
  allowCustom: true,
  options: [
    { id: 'plan-alpha', label: 'Alpha plan' },
    { id: 'plan-beta', label: 'Beta plan' },
  ],
};

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with exactly these headers (no cookie jar, no fetch that drops Origin). */
function raw(url: string, method: string, headers: Record<string, string> = {}, body?: unknown): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a session belongs to the browser that started it', () => {
  let model: ScriptedModel;
  let demo: DemoProcess;
  let chromium: LaunchedBrowser;
  let owner: BrowserContext;
  let ownerPage: ChatPage;
  let sessionId: string;
  let requestId: string;
  let ownerCookie: string;
  const secrets = () => [QUESTION.title, 'Alpha plan', 'plan-alpha', requestId, 'call_owned', 'my private words'];
  const assertSaysNothing = (text: string, where: string) => {
    for (const secret of secrets()) assert.ok(!text.includes(secret), `${where} leaks ${JSON.stringify(secret)}: ${text.slice(0, 300)}`);
  };

  before(async () => {
    model = await startScriptedModel({
      turns: [{ text: 'Noted.' }, { toolCalls: [{ id: 'call_owned', name: 'ask_user', arguments: QUESTION }] }],
      fallback: { text: 'ok' },
    });
    demo = await startDemoProcess({ baseURL: model.baseURL, store: 'memory' });
    chromium = await launchChromium();
    owner = await chromium.browser.newContext({ viewport: { width: 375, height: 667 } });
    ownerPage = new ChatPage(await owner.newPage(), demo.url, 'demo');
    await ownerPage.open();
    await ownerPage.send('my private words');
    await ownerPage.page.locator(SEL.assistant, { hasText: 'Noted.' }).waitFor();
    await ownerPage.send('ask me');
    const card = ownerPage.card();
    await card.locator('[part~="form"]').waitFor();
    requestId = (await card.getAttribute('data-request-id'))!;
    sessionId = (await ownerPage.page.locator('[data-testid="session-id"]').textContent())!;
    const cookie = (await owner.cookies(demo.url)).find((c) => c.name === OWNER_COOKIE);
    assert.ok(cookie, 'the page got its owner cookie');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    ownerCookie = `${OWNER_COOKIE}=${cookie.value}`;
  });
  after(async () => {
    await chromium?.close();
    await demo?.stop();
    await model?.close();
  });

  it('a plain HTTP client without the cookie gets 403 on pending, continue, chat, session and trace', async () => {
    const q = `sessionId=${encodeURIComponent(sessionId)}`;
    const answer = { sessionId, requestId, selections: ['plan-alpha'], customInput: '', cancelled: false };
    const replies = {
      pending: await raw(`${demo.url}/api/interactions/pending?${q}`, 'GET'),
      session: await raw(`${demo.url}/api/session?${q}`, 'GET'),
      trace: await raw(`${demo.url}/api/trace?${q}`, 'GET'),
      continue: await raw(`${demo.url}/api/chat/continue`, 'POST', {}, answer),
      chat: await raw(`${demo.url}/api/chat`, 'POST', {}, { sessionId, message: 'hijack' }),
    };
    for (const [route, reply] of Object.entries(replies)) {
      assert.equal(reply.status, 403, `${route}: ${reply.text}`);
      assert.equal(JSON.parse(reply.text).error.code, 'forbidden');
      assertSaysNothing(reply.text, route);
    }
    // With the owner's cookie the same client is the owner: the question is still there, unanswered.
    const mine = await raw(`${demo.url}/api/interactions/pending?${q}`, 'GET', { cookie: ownerCookie });
    assert.equal(mine.status, 200);
    assert.equal(JSON.parse(mine.text).pending.status, 'pending');
  });

  it('a second browser opening the ?session= link gets its own session and never sees the card', async () => {
    const other = await chromium.browser.newContext({ viewport: { width: 375, height: 667 } });
    try {
      const page = new ChatPage(await other.newPage(), demo.url, 'demo');
      const calls: Array<{ url: string; status: number }> = [];
      page.page.on('response', (res) => {
        if (res.url().includes('/api/')) calls.push({ url: res.url(), status: res.status() });
      });
      await page.open(`?session=${encodeURIComponent(sessionId)}`);
      await page.page.locator('[data-testid="run-error"]').first().waitFor();
      assert.notEqual(await page.page.locator('[data-testid="session-id"]').textContent(), sessionId, 'a new session of its own');
      assert.equal(await page.page.locator(SEL.card).count(), 0, 'no card');
      assertSaysNothing(await page.page.content(), 'the second browser page');
      const own = calls.filter((c) => c.url.includes(encodeURIComponent(sessionId)));
      assert.ok(own.length > 0 && own.every((c) => c.status === 403), JSON.stringify(own));
      // Its own requests straight at the owner's session are refused too, and say nothing.
      const direct = await page.page.evaluate(
        async ([sid, rid]) => {
          // No named helpers in here: the page runs this function's source as it is.
          const q = `sessionId=${encodeURIComponent(sid)}`;
          const json = { 'content-type': 'application/json' };
          const answer = JSON.stringify({ sessionId: sid, requestId: rid, selections: ['plan-beta'], customInput: '', cancelled: false });
          const replies = [
            await fetch(`/api/interactions/pending?${q}`),
            await fetch(`/api/session?${q}`),
            await fetch(`/api/trace?${q}`),
            await fetch('/api/chat/continue', { method: 'POST', headers: json, body: answer }),
            await fetch('/api/chat', { method: 'POST', headers: json, body: JSON.stringify({ sessionId: sid, message: 'hijack' }) }),
          ];
          return Promise.all(replies.map(async (r) => ({ url: r.url, status: r.status, text: await r.text() })));
        },
        [sessionId, requestId] as const,
      );
      for (const reply of direct) {
        assert.equal(reply.status, 403, reply.url);
        assertSaysNothing(reply.text, `second browser ${reply.url}`);
      }
    } finally {
      await other.close();
    }
  });

  it("an attacker's page on another site cannot answer through the owner's browser: form post and fetch", async () => {
    // Another site: `localhost` is not the site `127.0.0.1` (cookies and Sec-Fetch-Site follow the host).
    const attack = `<!doctype html><body>
      <form id="f" method="POST" action="${demo.url}/api/chat/continue" enctype="text/plain" target="sink">
        <input name='{"sessionId":"${sessionId}","requestId":"${requestId}","selections":["plan-beta"],"customInput":"","cancelled":false,"x":"' value='"}'>
      </form><iframe name="sink"></iframe>
      <script>
        window.fetchResult = fetch('${demo.url}/api/chat/continue', { method: 'POST', mode: 'no-cors', credentials: 'include',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ sessionId: '${sessionId}', requestId: '${requestId}', selections: ['plan-beta'], customInput: '', cancelled: false }) })
          .then(() => 'sent', (e) => 'failed: ' + e.message);
        document.getElementById('f').submit();
      </script></body>`;
    const site: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attack));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const before = demo.audit().length;
    try {
      const page = await owner.newPage();
      await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`);
      assert.equal(await page.evaluate(() => (window as unknown as { fetchResult: Promise<string> }).fetchResult), 'sent');
      // Both requests reached the server and were refused: one `rejected` line each, neither consumed the question.
      const deadline = Date.now() + 30_000;
      while (
        demo
          .audit()
          .slice(before)
          .filter((e) => e.event === 'rejected').length < 2 &&
        Date.now() < deadline
      )
        await new Promise((r) => setTimeout(r, 50));
      const refused = demo
        .audit()
        .slice(before)
        .filter((e) => e.event === 'rejected');
      assert.equal(refused.length, 2, JSON.stringify(refused));
      for (const e of refused) {
        assert.equal(e.reason, 'forbidden');
        assertSaysNothing(JSON.stringify({ ...e, requestId: undefined }), 'the audit line');
      }
      await page.close();
    } finally {
      site.closeAllConnections();
      await new Promise((r) => site.close(r));
    }
    const mine = await raw(`${demo.url}/api/interactions/pending?sessionId=${encodeURIComponent(sessionId)}`, 'GET', {
      cookie: ownerCookie,
    });
    assert.equal(JSON.parse(mine.text).pending.status, 'pending', 'the question was not answered');
  });

  it("the owner's cookie with a foreign Origin is refused on continue and chat; the owner then answers", async () => {
    const answer = { sessionId, requestId, selections: ['plan-alpha'], customInput: '', cancelled: false };
    const foreign = { cookie: ownerCookie, origin: 'http://evil.example' };
    assert.equal((await raw(`${demo.url}/api/chat/continue`, 'POST', foreign, answer)).status, 403);
    assert.equal((await raw(`${demo.url}/api/chat`, 'POST', foreign, { sessionId, message: 'x' })).status, 403);
    const own = await raw(`${demo.url}/api/chat/continue`, 'POST', { cookie: ownerCookie, origin: demo.url }, answer);
    assert.equal(own.status, 200);
    assert.match(own.text, /event: interaction_resolved/);
  });
});
