/**
 * Contract §13's Web Push routes on every host framework adapter in HOSTS: the VAPID public key, a
 * subscription stored by its owner (POST) and removed (DELETE, whose JSON body every adapter must read),
 * 403 for anyone else, 400 for an endpoint that is not https. Sending is push-notifier.test.ts's.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { HOSTS } from './host.js';
import { INTRUDER, send, startFixture, type Fixture } from './support.js';

/** A browser's PushSubscription JSON: a P-256 public key and 16 auth bytes. */
function subscription(endpoint: string) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-65);
  return { endpoint, keys: { p256dh: raw.toString('base64url'), auth: randomBytes(16).toString('base64url') } };
}

for (const hut of HOSTS) {
  describe(`${hut.name}: Web Push subscriptions (docs/protocol.md §13)`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await startFixture(hut, { webPush: { allowPrivateEndpoints: true } });
    });
    afterEach(async () => {
      await f.close();
    });

    const json = (method: string, body: unknown, headers: Record<string, string> = {}) =>
      send(`${f.url}/api/push/subscriptions`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });

    it('gives the VAPID key; stores a subscription for its owner, refuses others, and removes it with DELETE', async () => {
      const key = await send(`${f.url}/api/push/vapid-public-key`);
      assert.equal(key.status, 200);
      assert.match(JSON.parse(key.text).publicKey, /^[A-Za-z0-9_-]{87}$/);
      const sub = subscription('https://127.0.0.1:9/push/abc');
      assert.equal((await json('POST', { sessionId: 's-push', subscription: sub }, INTRUDER)).status, 403);
      assert.equal((await json('POST', { sessionId: 's-push', subscription: sub })).status, 201);
      assert.equal((await json('POST', { sessionId: 's-push', subscription: sub })).status, 200, 'subscribed again: refreshed');
      assert.equal((await json('DELETE', { sessionId: 's-push', endpoint: sub.endpoint }, INTRUDER)).status, 403);
      const removed = await json('DELETE', { sessionId: 's-push', endpoint: sub.endpoint });
      assert.equal(removed.status, 200);
      assert.deepEqual(JSON.parse(removed.text), { removed: true });
      assert.deepEqual(JSON.parse((await json('DELETE', { sessionId: 's-push', endpoint: sub.endpoint })).text), { removed: false });
    });

    it('400 for an endpoint that is not https, naming the field', async () => {
      const res = await json('POST', { sessionId: 's-push', subscription: subscription('http://push.example.test/abc') });
      assert.equal(res.status, 400);
      assert.equal(JSON.parse(res.text).error.field, 'subscription.endpoint');
    });
  });
}
