import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@keyv/redis';
import { openStore } from '../../../plugin/store/open-store.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { openRedisBackend } from '../../../plugin/store/redis-backend.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';
import { backendContract } from './backend-contract.js';
import { storeContract } from './store-contract.js';
import { pendingRecord, answered, HOUR, MINUTE } from './fixtures/records.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
});

storeContract('redis', (options) => openStore(redis.url, options));
backendContract('redis', async () => {
  const target = parseStoreUrl(redis.url);
  assert.equal(target.kind, 'redis');
  return openRedisBackend(target as Extract<typeof target, { kind: 'redis' }>, { timeoutMs: 1500 });
});

describe('redis backend specifics', () => {
  it('puts a real TTL on every row, renewed to the retention window on resolution', async () => {
    const store = await openStore(redis.url, { namespace: 'ttl', retentionMs: 2 * HOUR });
    const record = pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + HOUR });
    await store.create(record);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const key = `ttl:interaction:${record.requestId}`;
      const pending = await client.pTTL(key);
      // Logical end (expiresAt + retention) plus the store's one-minute grace.
      assert.ok(pending > 2.9 * HOUR && pending <= 3 * HOUR + MINUTE, `pending TTL ${pending} should be expiresAt + retention`);
      assert.ok((await client.pTTL(`ttl:session:${record.sessionId}`)) > 0);
      await store.claim(record.requestId, answered(['pg'], '', Date.now()));
      const resolved = await client.pTTL(key);
      assert.ok(resolved > 1.9 * HOUR && resolved <= 2 * HOUR + MINUTE, `tombstone TTL ${resolved} should be the retention`);
    } finally {
      await client.close();
      await store.close();
    }
  });

  it('honours a database number in the URL', async () => {
    const store = await openStore(`${redis.url}/3`, { namespace: 'db3' });
    await store.putState('k', 'v');
    const client = createClient({ url: `${redis.url}/3` });
    await client.connect();
    try {
      assert.ok((await client.get('db3:state:k'))?.includes('"v"'));
    } finally {
      await client.close();
      await store.close();
    }
  });
});
