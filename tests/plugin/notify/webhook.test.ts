/**
 * Contract §13, the Standard Webhooks notifier, against a receiver on loopback: exactly one delivery for a
 * card left open past `notifyAfterMs`, none for a card answered in time, retries with the same
 * `webhook-id` after 5xx/429 and none after a 4xx or once the card closed, one delivery when two
 * instances share a Redis store (the asking one's timer racing the other's sweeps), a signature that the
 * `standardwebhooks` library and the specification's own HMAC both accept, and no answer text anywhere.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { Webhook } from 'standardwebhooks';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { webhookNotifier } from '../../../plugin/notify/webhook-notifier.js';
import { startRedisServer } from '../../helpers/redis-server.js';
import { startScriptedModel } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';

const SECRET = `whsec_${Buffer.from('a test secret of 32 bytes length!').toString('base64')}`;
const FORM = { title: 'Which build should ship?', mode: 'single' as const, options: [{ id: 'a', label: 'A' }] };

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers each delivery with the next status of `statuses` (then 200), and `Retry-After` with the next of `retryAfter`. */
async function receiver(statuses: number[] = [], retryAfter: string[] = []) {
  const deliveries: Array<Delivery & { at: number }> = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body, at: Date.now() });
      res.statusCode = statuses.shift() ?? 200;
      const wait = retryAfter.shift();
      if (wait !== undefined) res.setHeader('retry-after', wait);
      res.end();
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    /** Resolves once `n` deliveries arrived (fails after `ms`). */
    async count(n: number, ms = 10_000) {
      const until = Date.now() + ms;
      while (deliveries.length < n) {
        assert.ok(Date.now() < until, `${n} deliveries within ${ms} ms (got ${deliveries.length})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the Standard Webhooks notifier (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function kitWith(hook: { url: string }, options: { notifyAfterMs: number; retryDelaysMs?: number[]; store?: PendingStore }) {
    const store = options.store ?? (await openStore('memory'));
    const kit = createAskUserKit({
      store,
      authorize: allowAnyCaller,
      logger: memoryAuditLogger(),
      notifyAfterMs: options.notifyAfterMs,
      notifiers: [webhookNotifier({ url: hook.url, secret: SECRET, retryDelaysMs: options.retryDelaysMs ?? [50, 50, 50, 50] })],
    });
    cleanups.push(async () => {
      await kit.close();
      if (!options.store) await store.close();
    });
    return kit;
  }

  it('delivers once for a card left open: signed, with the notification and nothing of any answer', async () => {
    const hook = await receiver();
    cleanups.push(() => hook.close());
    const kit = await kitWith(hook, { notifyAfterMs: 100 });
    const { record } = await kit.ask(FORM, { sessionId: 'w1', toolCallId: 'call_1' });
    await hook.count(1);
    await pause(400);
    assert.equal(hook.deliveries.length, 1, 'exactly one delivery');
    const [{ headers, body }] = hook.deliveries as [Delivery & { at: number }];
    assert.equal(headers['webhook-id'], record.requestId);
    assert.equal(headers['content-type'], 'application/json');
    const payload = JSON.parse(body);
    assert.equal(payload.type, 'ask_user.waiting');
    assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
    assert.deepEqual(payload.data, {
      sessionId: 'w1',
      requestId: record.requestId,
      kind: 'question',
      title: FORM.title,
      expiresAt: new Date(record.expiresAt).toISOString(),
    });
    // A receiver's library accepts it, and so does the specification's HMAC computed here by hand.
    const wh = new Webhook(SECRET);
    assert.deepEqual(wh.verify(body, headers as Record<string, string>), payload);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
    assert.throws(() => wh.verify(body.replace('ship', 'sink'), headers as Record<string, string>), /signature/i);
  });

  it('sends nothing for a card answered in time', async () => {
    const hook = await receiver();
    cleanups.push(() => hook.close());
    const kit = await kitWith(hook, { notifyAfterMs: 300 });
    const { record } = await kit.ask(FORM, { sessionId: 'w2', toolCallId: 'call_2' });
    await kit.closeInteraction(record.requestId, 'superseded');
    await pause(700);
    assert.equal(hook.deliveries.length, 0);
  });

  it('retries a 500, a 503 and a 429 with the same webhook-id, then stops at the 2xx', async () => {
    const hook = await receiver([500, 503, 429]);
    cleanups.push(() => hook.close());
    const kit = await kitWith(hook, { notifyAfterMs: 0 });
    const { record } = await kit.ask(FORM, { sessionId: 'w3', toolCallId: 'call_3' });
    await hook.count(4);
    await pause(300);
    assert.equal(hook.deliveries.length, 4);
    assert.deepEqual(new Set(hook.deliveries.map((d) => d.headers['webhook-id'])), new Set([record.requestId]));
    for (const d of hook.deliveries) new Webhook(SECRET).verify(d.body, d.headers as Record<string, string>);
  });

  it("waits as long as a 429's or a 503's Retry-After asks (seconds or an HTTP date) when that is longer than its own delay", async () => {
    const inTwoSeconds = new Date(Date.now() + 2_500).toUTCString();
    const hook = await receiver([429, 503, 500], ['1', inTwoSeconds, '0']);
    cleanups.push(() => hook.close());
    const kit = await kitWith(hook, { notifyAfterMs: 0, retryDelaysMs: [50, 50, 50, 50] });
    await kit.ask(FORM, { sessionId: 'w-retry-after', toolCallId: 'call_ra' });
    await hook.count(4, 20_000);
    const [first, second, third, fourth] = hook.deliveries.map((d) => d.at);
    // Lower bounds only: a busy machine makes the waits longer, never shorter.
    assert.ok(second! - first! >= 950, `Retry-After: 1 waited ${second! - first!} ms`);
    // An HTTP date has a resolution of one second: at least what was left of it after that second.
    assert.ok(third! >= Date.parse(inTwoSeconds), `Retry-After as a date waited until ${new Date(third!).toISOString()}`);
    // A shorter Retry-After than the notifier's own delay keeps its own (here 50 ms, and 0 asked).
    assert.ok(fourth! - third! >= 45, `Retry-After: 0 waited ${fourth! - third!} ms`);
  });

  it('a 400 ends it after one attempt; five failing attempts are the most', async () => {
    const refused = await receiver([400]);
    const failing = await receiver([500, 500, 500, 500, 500, 500, 500]);
    cleanups.push(
      () => refused.close(),
      () => failing.close(),
    );
    const a = await kitWith(refused, { notifyAfterMs: 0 });
    const b = await kitWith(failing, { notifyAfterMs: 0 });
    await a.ask(FORM, { sessionId: 'w4', toolCallId: 'call_4' });
    await b.ask(FORM, { sessionId: 'w5', toolCallId: 'call_5' });
    await failing.count(5);
    await pause(500);
    assert.equal(refused.deliveries.length, 1);
    assert.equal(failing.deliveries.length, 5);
  });

  it('an attempt that gets no answer within timeoutMs times out and is retried with the same webhook-id', async () => {
    let first = true;
    const ids: string[] = [];
    const server = createServer((req, res) => {
      ids.push(String(req.headers['webhook-id']));
      req.resume();
      if (first) {
        first = false;
        return; // never answers: the attempt must time out
      }
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const store = await openStore('memory');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const kit = createAskUserKit({
      store,
      authorize: allowAnyCaller,
      logger: memoryAuditLogger(),
      notifyAfterMs: 0,
      notifiers: [webhookNotifier({ url, secret: SECRET, timeoutMs: 300, retryDelaysMs: [50, 50] })],
    });
    cleanups.push(async () => (await kit.close(), await store.close()));
    const { record } = await kit.ask(FORM, { sessionId: 'w-timeout', toolCallId: 'call_t' });
    const until = Date.now() + 10_000;
    while (ids.length < 2) {
      assert.ok(Date.now() < until, `a second attempt after the timeout (got ${ids.length})`);
      await pause(50);
    }
    await pause(300);
    assert.deepEqual(ids, [record.requestId, record.requestId]);
  });

  it('no retry once the card closed', async () => {
    const hook = await receiver([500, 500, 500]);
    cleanups.push(() => hook.close());
    const kit = await kitWith(hook, { notifyAfterMs: 0, retryDelaysMs: [400, 400, 400, 400] });
    const { record } = await kit.ask(FORM, { sessionId: 'w6', toolCallId: 'call_6' });
    await hook.count(1);
    await kit.closeInteraction(record.requestId, 'superseded');
    await pause(1_200);
    assert.equal(hook.deliveries.length, 1);
  });

  it("two instances on one Redis: the asking one's timer and the other's sweeps deliver once", async () => {
    const redis = await startRedisServer();
    const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_r')] }] });
    const hook = await receiver();
    cleanups.push(
      () => redis.stop(),
      () => model.close(),
      () => hook.close(),
    );
    const instance = async () => {
      const store = await openStore(redis.url, { namespace: 'notify-two' });
      const kit = createAskUserKit({
        store,
        authorize: allowAnyCaller,
        logger: memoryAuditLogger(),
        notifyAfterMs: 250,
        notifiers: [webhookNotifier({ url: hook.url, secret: SECRET })],
        runtime: agentRuntime({
          client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
          model: 'm',
          onError: () => {},
        }),
      });
      cleanups.push(async () => (await kit.close(), await store.close()));
      return kit;
    };
    const a = await instance();
    const b = await instance();
    const sse = { send() {}, comment() {}, end() {}, closed: false, signal: new AbortController().signal };
    await a.runtime.chat({ caller: undefined, sessionId: 'w-two', message: 'ask', sse });
    // B sweeps all the while, so its sweep and A's timer both find the card due.
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      await b.runtime.sweep();
      await pause(20);
    }
    await hook.count(1);
    assert.equal(hook.deliveries.length, 1);

    // The asking instance gone before the card was due: the other's sweep finds it and delivers, once.
    model.enqueue({ toolCalls: [askSingle('call_gone')] });
    const c = await instance();
    await c.runtime.chat({ caller: undefined, sessionId: 'w-gone', message: 'ask', sse });
    await c.close();
    await pause(300);
    await b.runtime.sweep();
    await b.runtime.sweep();
    await hook.count(2);
    await pause(200);
    assert.equal(hook.deliveries.length, 2);
    assert.equal(JSON.parse(hook.deliveries[1]!.body).data.sessionId, 'w-gone');
  });
});
