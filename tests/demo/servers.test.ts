/**
 * The demo on each framework (ASK_USER_SERVER): the same page and API whichever serves them — health
 * names the framework, a question is asked and answered, the session view, the trace switch, the owner
 * cookie, the cross-site rule and the built page. Real Koa, Express and Hono over loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SERVERS } from '../../demo/app.js';
import { startHarness, askSingle, type Harness } from './harness.js';
import { answerBody, first, getJson, postStream } from './sse-client.js';
import { TEST_BROWSER_COOKIE } from '../helpers/browser-identity.js';

/** A request with exactly these headers (fetch would add the test browser's cookie, and drops Origin). */
function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string; setCookie: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, setCookie: res.headers['set-cookie'] ?? [] }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

for (const server of DEMO_SERVERS) {
  describe(`the demo on ${server}`, () => {
    let h: Harness;
    let page: string;
    before(async () => {
      page = mkdtempSync(join(tmpdir(), 'ask-user-page-'));
      writeFileSync(join(page, 'index.html'), '<!doctype html><title>demo</title><textarea data-testid="message-input"></textarea>');
      h = await startHarness({ server, staticDir: page, turns: [{ toolCalls: [askSingle('call_servers')] }, { text: 'You chose safe.' }] });
    });
    after(async () => {
      await h.close();
      rmSync(page, { recursive: true, force: true });
    });

    it('health names the framework, and the page is served', async () => {
      const health = await getJson(`${h.url}/api/health`);
      assert.deepEqual([health.status, health.body.server, health.body.trace], [200, server, false]);
      const home = await fetch(`${h.url}/`);
      assert.equal(home.status, 200);
      assert.match(home.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await home.text(), /message-input/);
    });

    it('a question is asked, answered exactly once, and the session view shows it', async () => {
      const chat = await postStream(`${h.url}/api/chat`, { sessionId: `s-${server}`, message: 'go' });
      assert.equal(chat.contentType.split(';')[0], 'text/event-stream');
      const card = first(chat, 'user_input_required');
      assert.ok(card, 'a card');
      const cont = await postStream(`${h.url}/api/chat/continue`, answerBody(`s-${server}`, card.id, ['safe']));
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      const again = await postStream(`${h.url}/api/chat/continue`, answerBody(`s-${server}`, card.id, ['safe']));
      assert.deepEqual([again.status, again.json?.error.code], [409, 'already_answered']);
      const view = await getJson(`${h.url}/api/session?sessionId=s-${server}`);
      assert.equal(view.status, 200);
      assert.ok(view.body.items.some((i: { role: string; text?: string }) => i.role === 'assistant' && i.text === 'You chose safe.'));
      const trace = await getJson(`${h.url}/api/trace?sessionId=s-${server}`);
      assert.equal(trace.status, 404, 'the trace is off unless asked for');
    });

    it('another browser gets 403 and learns nothing; a browser without a cookie gets one', async () => {
      const stranger = { cookie: 'ask_user_owner=another-browser-0123456789abcdefghijklmnopq' };
      const view = await raw(`${h.url}/api/session?sessionId=s-${server}`, 'GET', stranger);
      assert.equal(view.status, 403);
      assert.ok(!view.text.includes('You chose safe.'));
      const chat = await raw(`${h.url}/api/chat`, 'POST', stranger, { sessionId: `s-${server}`, message: 'hijack' });
      assert.equal(chat.status, 403);
      const fresh = await raw(`${h.url}/api/session?sessionId=s-new-${server}`, 'GET', {});
      assert.equal(fresh.status, 200);
      assert.match(fresh.setCookie.join('\n'), /ask_user_owner=[A-Za-z0-9_-]{43};.*HttpOnly/i);
      assert.match(fresh.setCookie.join('\n'), /SameSite=Lax/i);
    });

    it('a browser that starts with a chat gets its owner cookie on the chat stream, and it opens the card later', async () => {
      h.model.enqueue({ toolCalls: [askSingle('call_cookie')] });
      const chat = await raw(`${h.url}/api/chat`, 'POST', {}, { sessionId: `s-first-${server}`, message: 'go' });
      assert.equal(chat.status, 200);
      const owner = /ask_user_owner=([A-Za-z0-9_-]{43})/.exec(chat.setCookie.join('\n'));
      assert.ok(owner, 'the chat stream sets the owner cookie');
      const card = await raw(`${h.url}/api/interactions/pending?sessionId=s-first-${server}`, 'GET', {
        cookie: `ask_user_owner=${owner[1]}`,
      });
      assert.equal(card.status, 200);
      assert.equal(JSON.parse(card.text).pending?.status, 'pending');
    });

    it('a cross-site chat request is refused before anything runs', async () => {
      const before = h.model.requests.length;
      const res = await raw(
        `${h.url}/api/chat`,
        'POST',
        { cookie: TEST_BROWSER_COOKIE, origin: 'http://evil.example' },
        { sessionId: `s-${server}`, message: 'x' },
      );
      assert.equal(res.status, 403);
      assert.equal(JSON.parse(res.text).error.code, 'forbidden');
      assert.equal(h.model.requests.length, before);
    });
  });
}
