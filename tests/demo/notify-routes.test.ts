/**
 * The demo's side of contract §13 on each framework (ASK_USER_SERVER): `GET /api/features` says what the
 * page may offer; `POST /api/answer-link` gives the owner a new link to the session's waiting card (and
 * nobody else anything); the link's page loads the widget's standalone bundle from `/widget/`, which serves
 * that bundle's files and nothing else; Web Push's routes are on; a push's click opens the page at the
 * card when the card has no answer link. Real Koa, Express and Hono over loopback.
 */
import { after, before, describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SERVERS } from '../../demo/app.js';
import { pageUrlOf } from '../../demo/demo-core.js';
import { WIDGET_SCRIPT } from '../../demo/static-files.js';
import { startHarness, askSingle, type Harness } from './harness.js';
import { answerBody, first, getJson, postStream } from './sse-client.js';
import { TEST_BROWSER_COOKIE } from '../helpers/browser-identity.js';

/** A request with exactly these headers (the test's fetch would add the test browser's cookie). */
function raw(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const LINK = /^https:\/\/agent\.example\.test\/answer\/([A-Za-z0-9_-]{43})$/;

test('a push without an answer link opens the page at the session and the card', () => {
  assert.equal(pageUrlOf({ sessionId: 's-1 2', requestId: 'ask_abc' }), '/?session=s-1%202&card=ask_abc');
});

for (const server of DEMO_SERVERS) {
  describe(`§13 on the demo on ${server}`, () => {
    let h: Harness;
    let off: Harness;
    let widget: string;
    before(async () => {
      widget = mkdtempSync(join(tmpdir(), 'ask-user-widget-'));
      writeFileSync(join(widget, 'ask-user-kit.standalone.js'), 'export const standalone = true;');
      writeFileSync(join(widget, 'ask-user-kit.standalone-approval-card.js'), 'export const chunk = true;');
      writeFileSync(join(widget, 'ask-user-kit.markdown.js'), 'export const markdown = true;');
      writeFileSync(join(widget, 'ask-user-kit.js'), 'export const bundlersOnly = true;');
      writeFileSync(join(widget, 'secret.txt'), 'not for the web');
      h = await startHarness({
        server,
        widgetDir: widget,
        answerLinks: { publicUrl: 'https://agent.example.test' },
        webPush: {},
        notifyAfterMs: 60_000,
        turns: [{ toolCalls: [askSingle('call_links')] }, { text: 'You chose safe.' }],
      });
      off = await startHarness({ server });
    });
    after(async () => {
      await h.close();
      await off.close();
      rmSync(widget, { recursive: true, force: true });
    });

    it('GET /api/features says which of §13 the page may offer', async () => {
      assert.deepEqual(await getJson(`${h.url}/api/features`), { status: 200, body: { answerLinks: true, webPush: true } });
      assert.deepEqual(await getJson(`${off.url}/api/features`), { status: 200, body: { answerLinks: false, webPush: false } });
      assert.equal((await getJson(`${h.url}/api/push/vapid-public-key`)).status, 200, 'Web Push routes are on');
      assert.equal((await fetch(`${off.url}/api/push/vapid-public-key`)).status, 404);
    });

    it('/widget/ serves the standalone bundle and the chunks it loads, nothing else', async () => {
      const script = await fetch(`${h.url}${WIDGET_SCRIPT}`);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(await script.text(), 'export const standalone = true;');
      for (const chunk of ['ask-user-kit.standalone-approval-card.js', 'ask-user-kit.markdown.js'])
        assert.equal((await fetch(`${h.url}/widget/${chunk}`)).status, 200, chunk);
      for (const other of ['ask-user-kit.js', 'secret.txt', '..%2Fsecret.txt', '%2e%2e/package.json', 'ask-user-kit.standalone.js.map'])
        assert.equal((await fetch(`${h.url}/widget/${other}`)).status, 404, other);
    });

    it('POST /api/answer-link: the owner gets a new link to the waiting card; a stranger, another site, a bad body or another card get nothing', async () => {
      const sessionId = `s-links-${server}`;
      const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: 'go' });
      const card = first(chat, 'user_input_required');
      const url = `${h.url}/api/answer-link`;
      const body = { sessionId, requestId: card.id };

      const stranger = await raw(url, 'POST', { cookie: 'ask_user_owner=another-browser-0123456789abcdefghijklmnopq' }, body);
      assert.deepEqual([stranger.status, JSON.parse(stranger.text).error.code], [403, 'forbidden']);
      assert.ok(!stranger.text.includes('/answer/'));
      const crossSite = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE, origin: 'https://evil.example' }, body);
      assert.deepEqual([crossSite.status, JSON.parse(crossSite.text).error.code], [403, 'forbidden']);
      const noRequest = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE }, { sessionId });
      assert.deepEqual([noRequest.status, JSON.parse(noRequest.text).error.field], [400, 'requestId']);
      const notJson = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE, 'content-type': 'text/plain' }, body);
      assert.equal(notJson.status, 415);
      const otherCard = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE }, { sessionId, requestId: `ask_${'x'.repeat(22)}` });
      assert.deepEqual([otherCard.status, JSON.parse(otherCard.text).error.code], [404, 'not_found']);
      const turnedOff = await raw(`${off.url}/api/answer-link`, 'POST', { cookie: TEST_BROWSER_COOKIE }, body);
      assert.deepEqual([turnedOff.status, JSON.parse(turnedOff.text).error.code], [404, 'not_found']);

      const made = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE }, body);
      assert.equal(made.status, 200);
      const link = JSON.parse(made.text) as { requestId: string; url: string };
      assert.equal(link.requestId, card.id);
      const token = LINK.exec(link.url)?.[1];
      assert.ok(token, `a link on the public URL: ${link.url}`);
      const again = JSON.parse((await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE }, body)).text) as { url: string };
      assert.notEqual(again.url, link.url, 'each press makes a new link');

      // The link's page, served here (any cookie or none), loads the widget from where the demo serves it.
      const page = await raw(`${h.url}/answer/${token}`, 'GET', {});
      assert.equal(page.status, 200);
      assert.ok(page.text.includes(`<script type="module" src="${WIDGET_SCRIPT}"></script>`));
      // Answered by its owner, the card has no link to give any more.
      const cont = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, card.id, ['safe']));
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      const closed = await raw(url, 'POST', { cookie: TEST_BROWSER_COOKIE }, body);
      assert.deepEqual([closed.status, JSON.parse(closed.text).error.code], [404, 'not_found']);
      assert.equal((await raw(`${h.url}/answer/${token}`, 'GET', {})).status, 410);
      // Nothing of the links in the audit trail.
      assert.ok(!JSON.stringify(h.audit).includes(token));
    });
  });
}
