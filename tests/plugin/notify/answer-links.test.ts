/**
 * Contract §13, one-card answer links, over real HTTP on Koa with the plugin loop and a scripted model:
 * the link's page shows that card and nothing else of the session (a canary in an earlier message never
 * appears) with no-store, no-referrer and noindex; continue with the token and no owner credentials
 * answers once and the run goes on; reuse, a guess, another card's token and a closed card are refused;
 * the notification carries the link; the token is in no audit line or log.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ParameterizedContext } from 'koa';
import { createAskUserKit, memoryAuditLogger, openStore, type Notification } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { serveKoaChat } from '../../helpers/koa-chat-server.js';
import { startScriptedModel, type TurnScript } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { parseSse } from '../harness.js';

const CANARY = 'canary-9f2c-never-on-the-link-page';
const OWNER = { 'x-owner': 'yes' };

describe('one-card answer links (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function start(turns: TurnScript[] = [{ toolCalls: [askSingle('call_1')] }, { text: 'thanks' }], now?: () => number) {
    const store = await openStore('memory', now ? { now } : {});
    const model = await startScriptedModel({ turns, fallback: { text: 'ok' } });
    const audit = memoryAuditLogger();
    const notified: Notification[] = [];
    const errors: unknown[] = [];
    const kit = createAskUserKit<ParameterizedContext>({
      store,
      ...(now ? { now } : {}),
      // Only the owner's requests carry the header; a phone opening the link has nothing.
      authorize: (ctx) => ctx.get('x-owner') === 'yes',
      logger: audit,
      onError: (e) => errors.push(e),
      notifyAfterMs: 0,
      notifiers: [{ name: 'spy', notify: async (n) => void notified.push(n) }],
      answerLinks: { publicUrl: 'https://agent.example.test/', widgetScript: '/assets/ask-user-kit.standalone.js', locale: 'en' },
      runtime: agentRuntime({
        client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
        model: 'm',
        onError: (e) => errors.push(e),
      }),
    });
    const server = await serveKoaChat(kit);
    cleanups.push(
      () => store.close(),
      () => model.close(),
      () => kit.close(),
      () => server.close(),
    );
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const chat = async (sessionId: string, message: string) =>
      parseSse(await (await post('/api/chat', { sessionId, message }, OWNER)).text()).frames;
    const localPath = (link: string) => new URL(link).pathname;
    return { kit, server, post, chat, audit, notified, errors, localPath, model };
  }

  it('the page shows that card alone; the token answers once without the owner, and the run goes on', async () => {
    const t = await start();
    const frames = await t.chat('s1', `my secret plan is ${CANARY}`);
    const card = frames.find((f) => f.event === 'user_input_required')!.data as { id: string; title: string };
    const link = await t.kit.answerLink(card.id);
    assert.match(link, /^https:\/\/agent\.example\.test\/answer\/[A-Za-z0-9_-]{43}$/);
    const token = link.split('/').pop()!;

    const page = await fetch(t.server.url + t.localPath(link));
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(page.headers.get('x-robots-tag'), 'noindex');
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self' 'nonce-/);
    assert.ok(html.includes(card.id) && html.includes(JSON.stringify(card.title).slice(1, -1)), 'the card is on the page');
    assert.ok(!html.includes(CANARY), 'nothing else of the session');
    assert.ok(html.includes('/assets/ask-user-kit.standalone.js'));

    // A stranger without the token is refused as ever; with it, no owner credentials are needed.
    const answer = { sessionId: 's1', requestId: card.id, selections: ['safe'], customInput: '', cancelled: false };
    assert.equal((await t.post('/api/chat/continue', answer)).status, 403);
    const guessed = await t.post('/api/chat/continue', { ...answer, answerToken: 'A'.repeat(43) });
    assert.equal(guessed.status, 403);
    assert.equal(((await guessed.json()) as any).error.code, 'forbidden');
    const res = await t.post('/api/chat/continue', { ...answer, answerToken: token });
    assert.equal(res.status, 200);
    const cont = parseSse(await res.text()).frames;
    assert.deepEqual(
      cont.map((f) => f.event),
      ['interaction_resolved', 'tool_result', 'message_delta', 'done'],
    );
    assert.equal((cont[1]!.data as { content: string }).content, '{"selections":["safe"],"customInput":"","cancelled":false}');

    // Used: the same token again, and the page, are refused.
    assert.equal((await t.post('/api/chat/continue', { ...answer, answerToken: token })).status, 403);
    assert.equal((await fetch(t.server.url + t.localPath(link))).status, 404);
    // No audit line, log line or error carries the token.
    const trail = JSON.stringify(t.audit.entries) + JSON.stringify(t.errors.map(String));
    assert.ok(!trail.includes(token), 'the token is in no audit line or error');
  });

  it("keeps a link's row for its card's life and a day after by the kit's clock, not the machine's", async () => {
    // The kit's clock runs ten days behind the machine's: a row timed by the machine's would outlive its card by a day, not by its life and a day.
    const start0 = Date.now() - 10 * 24 * 3600_000;
    let clock = start0;
    const t = await start(undefined, () => clock);
    const card = (await t.chat('s-clock', 'go')).find((f) => f.event === 'user_input_required')!.data as { id: string; expiresAt: string };
    const link = await t.kit.answerLink(card.id);
    const lifeMs = Date.parse(card.expiresAt) - start0;
    assert.ok(lifeMs > 60_000 && lifeMs < 12 * 3600_000, `the card lives ${lifeMs} ms by the kit's clock`);
    // A day after the link was made, the card closed but still within the day after it closed: said so.
    clock = start0 + 24 * 3600_000 + 30_000;
    assert.equal((await fetch(t.server.url + t.localPath(link))).status, 410, 'closed, and said so, within the day after');
    clock = start0 + lifeMs + 24 * 3600_000 + 60_000;
    assert.equal((await fetch(t.server.url + t.localPath(link))).status, 404, 'forgotten a day after the card closed');
  });

  it("another card's token, a closed card's, and a malformed one are refused; a closed card's page says why (410)", async () => {
    const t = await start([{ toolCalls: [askSingle('call_1')] }, { toolCalls: [askSingle('call_2')] }]);
    const first = (await t.chat('s2', 'one')).find((f) => f.event === 'user_input_required')!.data as { id: string };
    const linkA = await t.kit.answerLink(first.id);
    // A new message supersedes the first card; the second card's own link cannot answer the first.
    const second = (await t.chat('s2', 'two')).find((f) => f.event === 'user_input_required');
    assert.ok(second, JSON.stringify(second));
    const secondId = (second!.data as { id: string }).id;
    const linkB = await t.kit.answerLink(secondId);
    const tokenA = linkA.split('/').pop()!;
    const tokenB = linkB.split('/').pop()!;
    const body = (requestId: string, answerToken: string) => ({
      sessionId: 's2',
      requestId,
      selections: ['safe'],
      customInput: '',
      cancelled: false,
      answerToken,
    });
    assert.equal((await t.post('/api/chat/continue', body(first.id, tokenB))).status, 403, "another card's token");
    assert.equal((await t.post('/api/chat/continue', body(first.id, tokenA))).status, 403, 'a closed card');
    assert.equal((await t.post('/api/chat/continue', body(secondId, 'short'))).status, 400, 'malformed');
    const closed = await fetch(t.server.url + t.localPath(linkA));
    assert.equal(closed.status, 410);
    assert.match(await closed.text(), /newer message replaced it/);
    assert.equal((await fetch(`${t.server.url}/answer/${'B'.repeat(43)}`)).status, 404);
  });

  it("a notification carries the card's link, and the link answers it", async () => {
    const t = await start();
    const card = (await t.chat('s3', 'go')).find((f) => f.event === 'user_input_required')!.data as { id: string };
    const until = Date.now() + 5_000;
    while (t.notified.length === 0) {
      assert.ok(Date.now() < until, 'notified');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [n] = t.notified as [Notification];
    assert.equal(n.requestId, card.id);
    assert.match(n.answerUrl!, /^https:\/\/agent\.example\.test\/answer\//);
    const page = await fetch(t.server.url + t.localPath(n.answerUrl!));
    assert.equal(page.status, 200);
  });
});
