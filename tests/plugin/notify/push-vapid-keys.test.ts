/**
 * Contract §13, the VAPID identity: keys from options are used as given (once checked to be a pair);
 * without them the first instance generates a pair and keeps it in the store, and every instance sharing
 * the store (two kits in one process on one memory store, two processes' stores on one SQLite file)
 * signs with that same pair, even when they start at once.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { openStore } from '../../../plugin/index.js';
import { DEFAULT_VAPID_SUBJECT, VAPID_STATE_KEY, VapidKeys } from '../../../plugin/notify/push/vapid-keys.js';
import { webPushNotifier } from '../../../plugin/notify/push/web-push-notifier.js';

describe('VAPID keys (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('instances sharing a memory store agree on one generated pair, even when they start at once', async () => {
    const store = await openStore('memory');
    cleanups.push(() => store.close());
    const instances = Array.from({ length: 8 }, () => new VapidKeys());
    const keys = await Promise.all(instances.map((v) => v.keys(store)));
    assert.equal(new Set(keys.map((k) => k.publicKey)).size, 1, 'one public key');
    assert.equal(new Set(keys.map((k) => k.privateKey)).size, 1, 'one private key');
    assert.deepEqual((await store.getState(VAPID_STATE_KEY))?.value, keys[0]);
    // Read again from the store by a new instance, and by a notifier's public key for the page.
    assert.deepEqual(await new VapidKeys().keys(store), keys[0]);
    assert.equal(await webPushNotifier().publicKey(store), keys[0]!.publicKey);
    assert.equal(Buffer.from(keys[0]!.publicKey, 'base64url').length, 65);
  });

  it('two stores on one SQLite file get the same generated key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-vapid-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'kit.db');
    const a = await openStore(`sqlite://${file}`);
    const b = await openStore(`sqlite://${file}`);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const [fromA, fromB] = await Promise.all([webPushNotifier().publicKey(a), webPushNotifier().publicKey(b)]);
    assert.equal(fromA, fromB);
  });

  it('keys from options are used as given, never written to the store', async () => {
    const store = await openStore('memory');
    cleanups.push(() => store.close());
    const given = webpush.generateVAPIDKeys();
    const vapid = new VapidKeys({ ...given, subject: 'https://app.example/contact' });
    assert.deepEqual(await vapid.details(store), { ...given, subject: 'https://app.example/contact' });
    assert.equal(await store.getState(VAPID_STATE_KEY), undefined);
    assert.equal(new VapidKeys().subject, DEFAULT_VAPID_SUBJECT);
  });

  it('refuses half a pair, keys that are not a pair, and a subject that is not mailto: or https:', () => {
    const a = webpush.generateVAPIDKeys();
    const b = webpush.generateVAPIDKeys();
    assert.throws(() => new VapidKeys({ publicKey: a.publicKey }), /both publicKey and privateKey/);
    assert.throws(() => new VapidKeys({ publicKey: a.publicKey, privateKey: b.privateKey }), /not the public key of privateKey/);
    assert.throws(() => new VapidKeys({ publicKey: 'short', privateKey: a.privateKey }), /65 bytes/);
    assert.throws(() => new VapidKeys({ publicKey: a.publicKey, privateKey: 'a+b/' }), /base64url/);
    for (const subject of ['http://app.example', 'ask-user-kit@example.com', 'ftp://x'])
      assert.throws(() => new VapidKeys({ subject }), /mailto: or https:/);
    // The key is never quoted in a message.
    assert.throws(
      () => new VapidKeys({ publicKey: a.publicKey, privateKey: b.privateKey }),
      (err: Error) => !err.message.includes(b.privateKey) && !err.message.includes(a.publicKey),
    );
  });

  it('a failed read is tried again on the next call', async () => {
    const store = await openStore('memory');
    cleanups.push(() => store.close());
    const vapid = new VapidKeys();
    let fail = true;
    const flaky = Object.create(store, {
      getState: { value: (key: string) => (fail ? Promise.reject(new Error('down')) : store.getState(key)) },
    }) as typeof store;
    await assert.rejects(vapid.keys(flaky), /down/);
    fail = false;
    assert.equal(Buffer.from((await vapid.keys(flaky)).publicKey, 'base64url').length, 65);
  });
});
