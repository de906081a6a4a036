/**
 * Contract §13, the Web Push notifier, against a push service on loopback over HTTPS: the message is an
 * RFC 8291 `aes128gcm` body that the test, playing the browser, decrypts by hand with its own keys, to the
 * card's title, requestId, kind and link and nothing else of the session; the VAPID JWT checks with the
 * public key and names the push service's origin; a 404 or 410 forgets the subscription, a 429 or 5xx
 * is retried with the same message, any other 4xx ends it, and nothing is retried once the card closed
 * or the kit closes.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore } from '../../../plugin/index.js';
import type { Notification, NotifyContext } from '../../../plugin/notify/notifier.js';
import { DEFAULT_VAPID_SUBJECT } from '../../../plugin/notify/push/vapid-keys.js';
import { webPushNotifier, type WebPushNotifierOptions } from '../../../plugin/notify/push/web-push-notifier.js';
import { startPushService, TestBrowser, verifyVapid } from './push-test-service.js';

const CANARY = 'canary-7f3e9b1d';
const FORM = { title: 'Which build should ship?', mode: 'single' as const, options: [{ id: 'a', label: `A ${CANARY}` }] };
const REQUEST_ID = 'ask_AAAAAAAAAAAAAAAAAAAAAAAA';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function notificationFor(sessionId: string, extra: Partial<Notification> = {}): Notification {
  return {
    sessionId,
    requestId: REQUEST_ID,
    kind: 'question',
    title: FORM.title,
    expiresAt: new Date(Date.now() + 10 * 60_000).toISOString(),
    ...extra,
  };
}

describe('the Web Push notifier (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(statuses: number[] = [], options: WebPushNotifierOptions = {}, retryAfter: string[] = []) {
    const service = await startPushService(statuses, retryAfter);
    const store = await openStore('memory');
    cleanups.push(
      () => service.close(),
      () => store.close(),
    );
    const notifier = webPushNotifier({
      allowPrivateEndpoints: true,
      agentOptions: { ca: service.ca },
      retryDelaysMs: [20, 20, 20, 20],
      ...options,
    });
    const ctx = (isOpen: () => Promise<boolean> = async () => true, signal = new AbortController().signal): NotifyContext => ({
      signal,
      isOpen,
      store,
    });
    return { service, store, notifier, ctx };
  }

  it('a card left open reaches the subscribed browser: VAPID-signed, aes128gcm, its title and nothing else of the session', async () => {
    const service = await startPushService();
    const store = await openStore('memory');
    const notifier = webPushNotifier({ allowPrivateEndpoints: true, agentOptions: { ca: service.ca } });
    const kit = createAskUserKit({
      store,
      authorize: allowAnyCaller,
      logger: memoryAuditLogger(),
      notifyAfterMs: 200,
      notifiers: [notifier],
    });
    cleanups.push(
      () => service.close(),
      () => store.close(),
      () => kit.close(),
    );
    const sessionId = `session-${CANARY}`;
    const browser = new TestBrowser();
    assert.equal(await notifier.subscribe(store, sessionId, browser.subscription(`${service.origin}/push/device-1`)), 'created');

    // An earlier card of the session, answered in time with the canary as free text: never pushed.
    const first = await kit.ask(FORM, { sessionId, toolCallId: 'call_1' });
    const claimed = await store.claim(first.record.requestId, {
      status: 'answered',
      at: Date.now(),
      answer: { selections: [], customInput: CANARY, cancelled: false },
    });
    assert.ok(claimed.ok);
    const { record } = await kit.ask(FORM, { sessionId, toolCallId: 'call_2' });
    await service.count(1);
    await pause(400);
    assert.equal(service.received.length, 1, 'one message, for the card left open');

    const [message] = service.received as [(typeof service.received)[number]];
    assert.equal(message.method, 'POST');
    assert.equal(message.path, '/push/device-1');
    assert.equal(message.headers['content-encoding'], 'aes128gcm');
    assert.equal(message.headers['content-type'], 'application/octet-stream');
    assert.equal(message.headers.urgency, 'high');
    assert.match(String(message.headers.topic), /^[A-Za-z0-9_-]{32}$/);
    const ttl = Number(message.headers.ttl);
    assert.ok(
      Number.isInteger(ttl) && ttl > 0 && ttl <= Math.ceil((record.expiresAt - Date.now()) / 1000) + 1,
      `TTL within the card's life, got ${ttl}`,
    );

    const publicKey = await notifier.publicKey(store);
    const claims = verifyVapid(message.headers.authorization, publicKey);
    assert.equal(claims.aud, service.origin, "aud is the push service's origin");
    assert.equal(claims.sub, DEFAULT_VAPID_SUBJECT);
    const nowSeconds = Date.now() / 1000;
    assert.ok(claims.exp > nowSeconds && claims.exp <= nowSeconds + 24 * 3600, 'exp within 24 hours (RFC 8292 §2)');

    // The body is ciphertext: neither the title nor the canary is readable in it.
    assert.ok(!message.body.includes(Buffer.from('build')) && !message.body.includes(Buffer.from(CANARY)));
    const plaintext = browser.decrypt(message.body);
    assert.deepEqual(JSON.parse(plaintext), { title: FORM.title, requestId: record.requestId, kind: 'question', url: '/' });
    assert.ok(!plaintext.includes(CANARY), 'no answer text, option label or session id');
  });

  it("the link is the card's answer link, else the host's urlOf, else /", async () => {
    const { service, store, notifier, ctx } = await setup([], { urlOf: (n) => `/chat?session=${n.sessionId.length}` });
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-link', browser.subscription(`${service.origin}/push/link`));
    await notifier.notify(notificationFor('s-link', { answerUrl: 'https://app.example/answer/abc' }), ctx());
    await notifier.notify(notificationFor('s-link'), ctx());
    const urls = service.received.map((m) => JSON.parse(browser.decrypt(m.body)).url);
    assert.deepEqual(urls, ['https://app.example/answer/abc', '/chat?session=6']);
    assert.equal(JSON.parse(browser.decrypt(service.received[0]!.body)).title, FORM.title);
  });

  it('a 410 forgets the subscription, and so does a 404', async () => {
    for (const status of [410, 404]) {
      const { service, store, notifier, ctx } = await setup([status]);
      const gone = new TestBrowser();
      const kept = new TestBrowser();
      await notifier.subscribe(store, 's-gone', gone.subscription(`${service.origin}/push/gone`));
      await notifier.subscribe(store, 's-gone', kept.subscription(`${service.origin}/push/kept`));
      await notifier.notify(notificationFor('s-gone'), ctx());
      assert.equal(service.received.length, 2, `${status}: one message each, no retry`);
      const left = await notifier.subscriptionsOf(store).list('s-gone');
      // The first message sent got the status; which endpoint that was depends on connection order.
      const goneEndpoint = `${service.origin}${service.received[0]!.path}`;
      assert.deepEqual(
        left.map((s) => s.endpoint),
        [`${service.origin}/push/gone`, `${service.origin}/push/kept`].filter((e) => e !== goneEndpoint),
        `${status} removes that subscription only`,
      );
    }
  });

  it('a 500 is retried with the same message until the 201; the subscription stays', async () => {
    const { service, store, notifier, ctx } = await setup([500]);
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-retry', browser.subscription(`${service.origin}/push/retry`));
    await notifier.notify(notificationFor('s-retry'), ctx());
    assert.equal(service.received.length, 2);
    const [a, b] = service.received as [(typeof service.received)[number], (typeof service.received)[number]];
    assert.equal(browser.decrypt(a.body), browser.decrypt(b.body), 'the same payload');
    assert.equal(a.headers.topic, b.headers.topic, 'the same topic, so a queued copy is replaced');
    assert.equal((await notifier.subscriptionsOf(store).list('s-retry')).length, 1);
  });

  it("a 429's or a 503's Retry-After longer than its own delay is waited for", async () => {
    const { service, store, notifier, ctx } = await setup([429, 503], {}, ['1', '2']);
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-retry-after', browser.subscription(`${service.origin}/push/later`));
    await notifier.notify(notificationFor('s-retry-after'), ctx());
    const [first, second, third] = service.received.map((r) => r.at);
    assert.equal(service.received.length, 3, 'delivered on the third attempt');
    // Lower bounds only: a busy machine makes the waits longer, never shorter.
    assert.ok(second! - first! >= 950, `Retry-After: 1 waited ${second! - first!} ms`);
    assert.ok(third! - second! >= 1950, `Retry-After: 2 waited ${third! - second!} ms`);
  });

  it('a 429 and 5xx are retried at most 5 attempts in all; a 400 ends it at once; neither names the endpoint', async () => {
    const failing = await setup([429, 503, 502, 500, 500, 500]);
    const browser = new TestBrowser();
    const endpoint = `${failing.service.origin}/push/secret-endpoint-token`;
    await failing.notifier.subscribe(failing.store, 's-fail', browser.subscription(endpoint));
    await assert.rejects(failing.notifier.notify(notificationFor('s-fail'), failing.ctx()), (err: Error) => {
      assert.match(err.message, /1 of 1 subscriptions not reached: gave up after 5 attempts \(last: status 500\)/);
      assert.ok(!err.message.includes('secret-endpoint-token'));
      return true;
    });
    assert.equal(failing.service.received.length, 5);

    const refused = await setup([400]);
    await refused.notifier.subscribe(refused.store, 's-400', browser.subscription(`${refused.service.origin}/push/bad`));
    await assert.rejects(refused.notifier.notify(notificationFor('s-400'), refused.ctx()), /status 400/);
    assert.equal(refused.service.received.length, 1);
    assert.equal((await refused.notifier.subscriptionsOf(refused.store).list('s-400')).length, 1, 'a 400 does not forget it');
  });

  it('no retry once the card closed, nor past its expiry', async () => {
    const { service, store, notifier, ctx } = await setup([503, 503]);
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-closed', browser.subscription(`${service.origin}/push/closed`));
    await notifier.notify(
      notificationFor('s-closed'),
      ctx(async () => false),
    );
    assert.equal(service.received.length, 1, 'one attempt, then the card was closed');

    // A card already past expiry is not sent at all: its message would outlive it.
    await notifier.notify(notificationFor('s-closed', { expiresAt: new Date(Date.now() - 1000).toISOString() }), ctx());
    assert.equal(service.received.length, 1);
  });

  it('a session without subscriptions sends nothing and generates no keys', async () => {
    const { store, notifier, ctx, service } = await setup();
    await notifier.notify(notificationFor('s-none'), ctx());
    assert.equal(service.received.length, 0);
    assert.equal(await store.getState('push-vapid'), undefined);
  });

  it('closing the kit aborts an attempt the push service never answers', async () => {
    const { service, store, notifier } = await setup([0], { timeoutMs: 60_000 });
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-hang', browser.subscription(`${service.origin}/push/hang`));
    const closing = new AbortController();
    const started = Date.now();
    const delivery = notifier.notify(notificationFor('s-hang'), { signal: closing.signal, isOpen: async () => true, store });
    await service.count(1);
    closing.abort();
    await delivery;
    assert.ok(Date.now() - started < 5_000, 'ended at the abort, not at the 60 s timeout');
  });

  it('a timeout is retried like a 5xx', async () => {
    const { service, store, notifier, ctx } = await setup([0, 201], { timeoutMs: 800 });
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-slow', browser.subscription(`${service.origin}/push/slow`));
    await notifier.notify(notificationFor('s-slow'), ctx());
    assert.equal(service.received.length, 2);
  });

  it('sends without the deprecated url.parse warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? w.name);
    process.on('warning', onWarning);
    try {
      const { service, store, notifier, ctx } = await setup();
      await notifier.subscribe(store, 's-warn', new TestBrowser().subscription(`${service.origin}/push/w`));
      await notifier.notify(notificationFor('s-warn'), ctx());
      await pause(50);
    } finally {
      process.off('warning', onWarning);
    }
    assert.ok(!warnings.includes('DEP0169'), `no DEP0169 (got ${warnings.join(', ') || 'none'})`);
  });
});
