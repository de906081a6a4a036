/**
 * Contract §13, where a push may go: only `https:` endpoints whose every address is public. Loopback,
 * private, link-local, unique-local, unspecified, CGNAT, multicast and IPv4 inside IPv6 are refused unless
 * the host allows private endpoints; a name is checked by what it resolves to, when subscribing, before
 * each send, and at the connection itself (a name that rebinds to loopback after the check is refused).
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { openStore } from '../../../plugin/index.js';
import { EndpointGuard, EndpointRefusedError, isPublicAddress } from '../../../plugin/notify/push/endpoint-guard.js';
import { webPushNotifier } from '../../../plugin/notify/push/web-push-notifier.js';
import { startPushService, TestBrowser } from './push-test-service.js';

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** Names as a test DNS answers them; anything else does not resolve. */
const names: Record<string, LookupAddress[]> = {
  'push.example': [v4('93.184.216.34')],
  'ten.example': [v4('10.0.0.5')],
  'mixed.example': [v4('93.184.216.34'), v6('fd00::1')],
  'metadata.example': [v4('169.254.169.254')],
};
const resolve = async (hostname: string) => {
  const found = names[hostname];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found;
};

async function refusal(guard: EndpointGuard, endpoint: string): Promise<string | undefined> {
  try {
    await guard.check(endpoint);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof EndpointRefusedError);
    assert.ok(!err.message.includes(endpoint), 'the message never quotes the endpoint');
    return err.reason;
  }
}

describe('the push endpoint guard (contract §13)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('refuses every non-public address, IPv4 inside IPv6 too, and passes public ones', () => {
    const refused = [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.251',
      '255.255.255.255',
      '198.18.0.1',
      '192.0.2.1',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:c0a8:0101::1',
      '2001:db8::1',
      'not an address',
    ];
    const allowed = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '2a00:1450:4001::5',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, `${address} is refused`);
    for (const address of allowed) assert.equal(isPublicAddress(address), true, `${address} is public`);
  });

  it('refuses http:, credentials and over-long endpoints whatever the host allows', async () => {
    for (const guard of [new EndpointGuard({ resolve }), new EndpointGuard({ resolve, allowPrivateEndpoints: true })]) {
      assert.equal(await refusal(guard, 'http://push.example/x'), 'not_https');
      assert.equal(await refusal(guard, 'https://user:pw@push.example/x'), 'malformed');
      assert.equal(await refusal(guard, `https://push.example/${'a'.repeat(2048)}`), 'malformed');
      assert.equal(await refusal(guard, 'not a url'), 'malformed');
    }
  });

  it('refuses literal and resolved private addresses unless allowed', async () => {
    const strict = new EndpointGuard({ resolve });
    const open = new EndpointGuard({ resolve, allowPrivateEndpoints: true });
    for (const endpoint of [
      'https://127.0.0.1/p',
      'https://10.0.0.1/p',
      'https://192.168.0.10/p',
      'https://169.254.169.254/p',
      'https://[fc00::1]/p',
      'https://[::1]/p',
      'https://[::ffff:127.0.0.1]/p',
      'https://ten.example/p',
      'https://mixed.example/p',
      'https://metadata.example/p',
    ]) {
      assert.equal(await refusal(strict, endpoint), 'private_address', endpoint);
      assert.equal(await refusal(open, endpoint), undefined, `${endpoint} when allowed`);
    }
    assert.equal(await refusal(strict, 'https://push.example/p'), undefined);
    assert.equal(await refusal(strict, 'https://nowhere.example/p'), 'unresolved');
  });

  it('checks the real resolver: localhost is refused unless allowed', async () => {
    assert.equal(await refusal(new EndpointGuard(), 'https://localhost:9/p'), 'private_address');
    assert.equal(await refusal(new EndpointGuard({ allowPrivateEndpoints: true }), 'https://localhost:9/p'), undefined);
  });

  it('the connection checks its own lookup: a name that rebinds to loopback after the check gets nothing sent', async () => {
    const service = await startPushService();
    const store = await openStore('memory');
    cleanups.push(
      () => service.close(),
      () => store.close(),
    );
    // The first answer is public (the check when subscribing); every later one is loopback.
    let lookups = 0;
    const rebinding = async () => (lookups++ === 0 ? [v4('93.184.216.34')] : [v4('127.0.0.1')]);
    const notifier = webPushNotifier({ resolve: rebinding, agentOptions: { ca: service.ca }, retryDelaysMs: [10] });
    const browser = new TestBrowser();
    await notifier.subscribe(store, 's-rebind', browser.subscription(`https://push.test:${service.port}/push/r`));
    await assert.rejects(
      notifier.notify(
        {
          sessionId: 's-rebind',
          requestId: 'ask_BBBBBBBBBBBBBBBBBBBBBBBB',
          kind: 'question',
          title: 'T',
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
        { signal: new AbortController().signal, isOpen: async () => true, store },
      ),
      /endpoint refused \(private_address\)/,
    );
    assert.equal(service.received.length, 0);

    // The pre-send check alone would have passed: only the connection's lookup saw loopback.
    let connectOnly = 0;
    const late = async () => (connectOnly++ < 2 ? [v4('93.184.216.34')] : [v4('127.0.0.1')]);
    const lateNotifier = webPushNotifier({ resolve: late, agentOptions: { ca: service.ca }, retryDelaysMs: [] });
    await lateNotifier.subscribe(store, 's-late', browser.subscription(`https://push.test:${service.port}/push/l`));
    await assert.rejects(
      lateNotifier.notify(
        {
          sessionId: 's-late',
          requestId: 'ask_CCCCCCCCCCCCCCCCCCCCCCCC',
          kind: 'question',
          title: 'T',
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
        { signal: new AbortController().signal, isOpen: async () => true, store },
      ),
      /endpoint refused \(private_address\)/,
    );
    assert.equal(connectOnly, 3, 'subscribe, the pre-send check, then the connection');
    assert.equal(service.received.length, 0);

    // Allowed, the same name reaches the service through the same lookup.
    const allowed = webPushNotifier({
      resolve: async () => [v4('127.0.0.1')],
      allowPrivateEndpoints: true,
      agentOptions: { ca: service.ca },
    });
    await allowed.subscribe(store, 's-ok', browser.subscription(`https://push.test:${service.port}/push/ok`));
    await allowed.notify(
      {
        sessionId: 's-ok',
        requestId: 'ask_DDDDDDDDDDDDDDDDDDDDDDDD',
        kind: 'question',
        title: 'T',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      },
      { signal: new AbortController().signal, isOpen: async () => true, store },
    );
    assert.equal(service.received.length, 1);
  });
});
