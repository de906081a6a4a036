/**
 * Contract §13, the Web Push routes and what they keep: `POST /api/push/subscriptions` stores a browser's
 * subscription for a session, owner-bound and cross-site-checked as continue is, with 400 naming the field
 * (never quoting it) and 400 for an endpoint the guard refuses; `DELETE` removes one; `GET
 * /api/push/vapid-public-key` gives the page its key; 503 when the store is down. The handlers run on
 * requests built as the Fetch adapter builds them, with a real kit's store, audit and coordinator. The
 * subscriptions' own rules follow: a lifetime refreshed by subscribing again, the browser's expiry, a cap
 * per session, and sessions that share a prefix kept apart.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createECDH, randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { webRouteRequest } from '../../../plugin/adapters/web-request.js';
import {
  allowAnyCaller,
  createAskUserKit,
  memoryAuditLogger,
  openStore,
  type Coordinator,
  type PendingStore,
  type RunHost,
} from '../../../plugin/index.js';
import { pushRoutes } from '../../../plugin/core/push-route.js';
import { routeShared } from '../../../plugin/core/route-shared.js';
import type { JsonReply, RouteIo, RouteResult } from '../../../plugin/core/route-types.js';
import { PushSubscriptions, type PushSubscriptionJson } from '../../../plugin/notify/push/push-subscriptions.js';
import { webPushNotifier } from '../../../plugin/notify/push/web-push-notifier.js';

const ORIGIN = 'http://127.0.0.1:8080';
const OWNER = 'session-owned';

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const dns: Record<string, LookupAddress[]> = {
  'push.example': [v4('93.184.216.34')],
  'ten.example': [v4('10.0.0.5')],
};

function subscription(endpoint = 'https://push.example/send/device-1'): PushSubscriptionJson {
  const ecdh = createECDH('prime256v1');
  return {
    endpoint,
    expirationTime: null,
    keys: { p256dh: ecdh.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

const json = (result: RouteResult): JsonReply => {
  assert.ok(result && result !== 'streamed', 'a JSON reply');
  return result;
};

describe('the Web Push routes (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup() {
    const store = await openStore('memory');
    const audit = memoryAuditLogger();
    let coordinator!: Coordinator;
    const host: RunHost = { isResumable: async () => false, resume: async () => {}, closed: async () => {} };
    const kit = createAskUserKit({
      store,
      authorize: allowAnyCaller,
      logger: audit,
      runtime: (c) => {
        coordinator = c;
        return host;
      },
    });
    cleanups.push(
      () => kit.close(),
      () => store.close(),
    );
    let lookups = 0;
    const notifier = webPushNotifier({
      resolve: async (name) => {
        lookups++;
        const found = dns[name];
        if (!found) throw new Error('not found');
        return found;
      },
    });
    const now = Date.now;
    const routes = pushRoutes({ store, allowedOrigins: [], now }, routeShared({ audit, coordinator, now }), notifier);
    const io: RouteIo = {
      authorized: (sessionId) => sessionId === OWNER,
      openSse: () => {
        throw new Error('these routes never stream');
      },
    };
    const call = async (
      handler: keyof typeof routes,
      method: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<JsonReply> => {
      const path = handler === 'vapidPublicKey' ? '/api/push/vapid-public-key' : '/api/push/subscriptions';
      const request = new Request(`${ORIGIN}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return json(await routes[handler](webRouteRequest(request), io));
    };
    return { store, audit, notifier, call, lookups: () => lookups };
  }

  it('subscribes (201, then 200 when sent again), keeps only what Web Push uses, and unsubscribes', async () => {
    const { store, notifier, call } = await setup();
    const sub = subscription();
    const padded = { ...sub, keys: { ...sub.keys, auth: `${sub.keys.auth}==` }, extra: 'dropped' };
    const created = await call('subscribePush', 'POST', { sessionId: OWNER, subscription: padded }, { origin: ORIGIN });
    assert.deepEqual([created.status, created.body, created.headers['Cache-Control']], [201, { ok: true }, 'no-store']);
    const again = await call('subscribePush', 'POST', { sessionId: OWNER, subscription: sub });
    assert.deepEqual([again.status, again.body], [200, { ok: true }]);
    assert.deepEqual(await notifier.subscriptionsOf(store).list(OWNER), [sub]);

    const removed = await call('unsubscribePush', 'DELETE', { sessionId: OWNER, endpoint: sub.endpoint });
    assert.deepEqual([removed.status, removed.body], [200, { removed: true }]);
    const none = await call('unsubscribePush', 'DELETE', { sessionId: OWNER, endpoint: sub.endpoint });
    assert.deepEqual([none.status, none.body], [200, { removed: false }]);
    assert.deepEqual(await notifier.subscriptionsOf(store).list(OWNER), []);
  });

  it('is owner-bound: 403 for another session, before any lookup; 403 for a cross-site page before the body is read', async () => {
    const { store, audit, notifier, call, lookups } = await setup();
    const other = await call('subscribePush', 'POST', { sessionId: 'someone-else', subscription: subscription() });
    assert.equal(other.status, 403);
    assert.equal((other.body as { error: { code: string } }).error.code, 'forbidden');
    assert.equal(lookups(), 0, 'the endpoint is not resolved for a stranger');
    assert.deepEqual(await notifier.subscriptionsOf(store).list('someone-else'), []);
    assert.ok(audit.entries.some((e) => e.event === 'rejected' && e.reason === 'forbidden' && e.sessionId === 'someone-else'));

    const crossSite = await call('subscribePush', 'POST', '{not json', { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    assert.match((crossSite.body as { error: { message: string } }).error.message, /Cross-site/);
    const crossDelete = await call('unsubscribePush', 'DELETE', { sessionId: OWNER, endpoint: 'x' }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossDelete.status, 403);
    const otherDelete = await call('unsubscribePush', 'DELETE', { sessionId: 'someone-else', endpoint: 'x' });
    assert.equal(otherDelete.status, 403);
  });

  it('400 invalid_request names the field and never quotes the value', async () => {
    const { call } = await setup();
    const sub = subscription();
    const cases: Array<[unknown, string]> = [
      [{ sessionId: OWNER }, 'subscription'],
      [{ sessionId: 'has space', subscription: sub }, 'sessionId'],
      [{ sessionId: OWNER, subscription: { ...sub, endpoint: 'http://push.example/LEAKED-path' } }, 'subscription.endpoint'],
      [{ sessionId: OWNER, subscription: { ...sub, endpoint: `https://push.example/${'x'.repeat(2100)}` } }, 'subscription.endpoint'],
      [
        { sessionId: OWNER, subscription: { ...sub, keys: { ...sub.keys, p256dh: Buffer.from('LEAKED-key').toString('base64url') } } },
        'subscription.keys.p256dh',
      ],
      [
        {
          sessionId: OWNER,
          subscription: { ...sub, keys: { ...sub.keys, auth: Buffer.from('LEAKED-auth-too-long-for-16').toString('base64url') } },
        },
        'subscription.keys.auth',
      ],
      [{ sessionId: OWNER, subscription: { ...sub, keys: undefined } }, 'subscription.keys'],
      [{ sessionId: OWNER, subscription: { ...sub, expirationTime: Date.now() - 1000 } }, 'subscription.expirationTime'],
    ];
    for (const [body, field] of cases) {
      const reply = await call('subscribePush', 'POST', body);
      const error = (reply.body as { error: { code: string; field?: string; message: string } }).error;
      assert.deepEqual([reply.status, error.code, error.field], [400, 'invalid_request', field], JSON.stringify(error));
      assert.ok(!/LEAKED|TEVBS0VE/.test(error.message), `no value quoted: ${error.message}`);
    }
    const notJson = await call('subscribePush', 'POST', undefined, { 'content-type': 'text/plain' });
    assert.equal(notJson.status, 415);
    const deleteWithout = await call('unsubscribePush', 'DELETE', { sessionId: OWNER });
    assert.equal((deleteWithout.body as { error: { field?: string } }).error.field, 'endpoint');
  });

  it('an endpoint that resolves to a private address is refused with 400, a public one is kept', async () => {
    const { store, notifier, call } = await setup();
    for (const endpoint of [
      'https://ten.example/send/secret',
      'https://127.0.0.1/send/secret',
      'https://[::1]/send/secret',
      'https://nowhere.example/send/secret',
    ]) {
      const reply = await call('subscribePush', 'POST', { sessionId: OWNER, subscription: subscription(endpoint) });
      const error = (reply.body as { error: { code: string; field?: string; message: string } }).error;
      assert.deepEqual([reply.status, error.code, error.field], [400, 'invalid_request', 'subscription.endpoint'], endpoint);
      assert.ok(!error.message.includes('secret'), error.message);
    }
    assert.deepEqual(await notifier.subscriptionsOf(store).list(OWNER), []);
    assert.equal((await call('subscribePush', 'POST', { sessionId: OWNER, subscription: subscription() })).status, 201);
  });

  it('gives the page the VAPID public key, not cached, without a session', async () => {
    const { store, notifier, call } = await setup();
    const reply = await call('vapidPublicKey', 'GET');
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['Cache-Control'], 'no-store');
    const { publicKey } = reply.body as { publicKey: string };
    assert.equal(publicKey, await notifier.publicKey(store));
    assert.equal(Buffer.from(publicKey, 'base64url').length, 65);
  });

  it('503 store_unavailable when the store is down', async () => {
    const { store, call } = await setup();
    await store.close();
    for (const [handler, method, body] of [
      ['subscribePush', 'POST', { sessionId: OWNER, subscription: subscription() }],
      ['unsubscribePush', 'DELETE', { sessionId: OWNER, endpoint: 'https://push.example/x' }],
      ['vapidPublicKey', 'GET', undefined],
    ] as const) {
      const reply = await call(handler, method, body);
      assert.equal(reply.status, 503, handler);
      assert.equal((reply.body as { error: { code: string } }).error.code, 'store_unavailable');
    }
  });
});

describe('push subscriptions in the store (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function storeAt(clock: { t: number }): Promise<PendingStore> {
    const store = await openStore('memory', { now: () => clock.t });
    cleanups.push(() => store.close());
    return store;
  }

  it('a subscription lives ttlMs from its last subscribe, or until the browser said it ends', async () => {
    const clock = { t: 1_000_000 };
    const store = await storeAt(clock);
    const subs = new PushSubscriptions(store, { ttlMs: 10_000, now: () => clock.t });
    const a = subscription('https://push.example/a');
    const b = { ...subscription('https://push.example/b'), expirationTime: clock.t + 3_000 };
    await subs.add('s', a);
    await subs.add('s', b);
    clock.t += 3_000;
    assert.deepEqual(
      (await subs.list('s')).map((s) => s.endpoint),
      ['https://push.example/a'],
      "b ended at the browser's expirationTime",
    );
    clock.t += 5_000;
    assert.equal(await subs.add('s', a), 'updated', 'subscribing again refreshes it');
    clock.t += 9_000;
    assert.equal((await subs.list('s')).length, 1, 'still kept 9 s after the refresh');
    clock.t += 1_000;
    assert.deepEqual(await subs.list('s'), []);
    assert.equal(await store.getState('push:s'), undefined, 'the entry went with its last subscription');
  });

  it('keeps at most maxPerSession; a new one pushes out the one closest to its end', async () => {
    const clock = { t: 5_000_000 };
    const store = await storeAt(clock);
    const subs = new PushSubscriptions(store, { maxPerSession: 3, now: () => clock.t });
    for (const name of ['a', 'b', 'c', 'd']) {
      await subs.add('s', subscription(`https://push.example/${name}`));
      clock.t += 1_000;
    }
    assert.deepEqual(
      (await subs.list('s')).map((s) => s.endpoint).sort(),
      ['b', 'c', 'd'].map((n) => `https://push.example/${n}`),
    );
  });

  it('sessions whose ids share a prefix never see each other', async () => {
    const store = await storeAt({ t: Date.now() });
    const subs = new PushSubscriptions(store);
    await subs.add('a', subscription('https://push.example/of-a'));
    await subs.add('a:b', subscription('https://push.example/of-ab'));
    assert.deepEqual(
      (await subs.list('a')).map((s) => s.endpoint),
      ['https://push.example/of-a'],
    );
    assert.deepEqual(
      (await subs.list('a:b')).map((s) => s.endpoint),
      ['https://push.example/of-ab'],
    );
    assert.equal(await subs.remove('a', 'https://push.example/of-ab'), false, "a session cannot remove another's");
  });

  it('concurrent subscribes to one session all land (compare-and-set)', async () => {
    const store = await storeAt({ t: Date.now() });
    const subs = new PushSubscriptions(store, { maxPerSession: 50 });
    const all = Array.from({ length: 6 }, (_, i) => subscription(`https://push.example/${i}`));
    await Promise.all(all.map((s) => subs.add('busy', s)));
    assert.equal((await subs.list('busy')).length, 6);
  });
});
