/**
 * Contract §13's answer links on every host framework adapter in HOSTS: the page at `/answer/<token>` is
 * HTML with no-store, no-referrer and noindex (not JSON), 404 for a token that opens nothing, 410 once the
 * card closed; continue with the token answers without the caller's credentials, once.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { HOSTS } from './host.js';
import { INTRUDER, send, startFixture, type Fixture } from './support.js';

const LINKS = { publicUrl: 'https://agent.example.test', widgetScript: '/widget/ask-user-kit.standalone.js', locale: 'en' as const };

for (const hut of HOSTS) {
  describe(`${hut.name}: answer links (docs/protocol.md §13)`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await startFixture(hut, { answerLinks: LINKS });
    });
    afterEach(async () => {
      await f.close();
    });

    const pagePath = (link: string) => f.url + new URL(link).pathname;

    it('serves the page as HTML with its headers; 404 for a token that opens nothing', async () => {
      const record = await f.ask('s-page');
      const link = await f.started.kit.answerLink(record.requestId);
      const page = await send(pagePath(link));
      assert.equal(page.status, 200);
      assert.match(page.headers['content-type'] ?? '', /^text\/html; charset=utf-8/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['x-robots-tag'], 'noindex');
      assert.match(page.text, /^<!doctype html>/);
      assert.ok(page.text.includes(record.requestId));
      const none = await send(`${f.url}/answer/${'x'.repeat(43)}`);
      assert.equal(none.status, 404);
      assert.match(none.headers['content-type'] ?? '', /^text\/html/);
    });

    it('continue with the token answers once, whoever the caller; the page is then gone', async () => {
      const record = await f.ask('s-link');
      const link = await f.started.kit.answerLink(record.requestId);
      const answerToken = link.split('/').pop()!;
      const body = {
        sessionId: 's-link',
        requestId: record.requestId,
        selections: ['safe'],
        customInput: '',
        cancelled: false,
        answerToken,
      };
      // The caller the policy refuses: the token stands in for its credentials.
      const answered = await f.post(body, { headers: INTRUDER });
      assert.equal(answered.status, 200);
      assert.equal(f.host.resumed.length, 1);
      const again = await f.post(body);
      assert.equal(again.status, 403);
      assert.equal((await send(pagePath(link))).status, 404);
    });

    it('410 with the reason once the card closed without an answer', async () => {
      const record = await f.ask('s-closed');
      const link = await f.started.kit.answerLink(record.requestId);
      await f.started.kit.supersede('s-closed');
      const page = await send(pagePath(link));
      assert.equal(page.status, 410);
      assert.match(page.text, /replaced it/);
    });
  });
}
