import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@keyv/redis';
import { newRequestId } from '../../../plugin/core/request-id.js';
import { sessionSlotTag } from '../../../plugin/store/session-slot.js';
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { StoredRuns, type StoredRun } from '../../../plugin/runs/stored-runs.js';
import { openStore } from '../../../plugin/store/open-store.js';
import { openRedisClusterBackend } from '../../../plugin/store/redis-cluster-backend.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { backendContract } from './backend-contract.js';
import { storeContract } from './store-contract.js';
import { answered, HOUR, pendingRecord } from './fixtures/records.js';

let cluster: RedisCluster;
before(async () => {
  cluster = await startRedisCluster();
});
after(async () => {
  await cluster?.stop();
});

const clusterTarget = () => {
  const target = parseStoreUrl(cluster.url);
  assert.equal(target.kind, 'redis-cluster');
  return target as Extract<typeof target, { kind: 'redis-cluster' }>;
};

storeContract('redis-cluster', (options) => openStore(cluster.url, options));
backendContract('redis-cluster', () => openRedisClusterBackend(clusterTarget(), { timeoutMs: 1500, waitReplicas: 1 }));

describe('redis cluster store specifics', () => {
  /** Every key on every master whose name starts with `prefix`. */
  async function keysUnder(prefix: string): Promise<string[]> {
    const keys = await Promise.all(
      (await cluster.masters()).map(async (port) => (await cluster.cli(port, '--scan', '--pattern', `${prefix}*`)).split('\n')),
    );
    return keys.flat().filter((k) => k !== '');
  }

  it('names its backend redis-cluster and parses the URL into root nodes', async () => {
    assert.deepEqual(parseStoreUrl('redis+cluster://a:1,b.example:6380').kind, 'redis-cluster');
    assert.deepEqual((parseStoreUrl('redis+cluster://u:p%40ss@a:1,b:2') as { rootNodes: unknown }).rootNodes, [
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
    assert.equal((parseStoreUrl('redis+cluster://u:secret@a:1') as { label: string }).label, 'redis+cluster://a:1');
    assert.throws(() => parseStoreUrl('redis+cluster://'), /invalid_store_url|not accepted/);
    assert.throws(() => parseStoreUrl('redis+cluster://a'), /not host:port/);
    const store = await openStore(cluster.url);
    try {
      assert.equal(store.kind, 'redis-cluster');
    } finally {
      await store.close();
    }
  });

  it("keeps every key the kit writes for one session in that session's slot", async () => {
    const namespace = `slot${randomBytes(4).toString('hex')}`;
    const store = await openStore(cluster.url, { namespace });
    try {
      const sessionId = `s{odd}%${randomBytes(4).toString('hex')}`;
      const record = pendingRecord({ requestId: newRequestId(sessionId), sessionId, createdAt: Date.now(), expiresAt: Date.now() + HOUR });
      await store.create(record);
      await store.putState(`run:${sessionId}`, { step: 1 }, { sessionId });
      await store.putState(`paused:${sessionId}`, { requestId: record.requestId }, { sessionId });
      await store.putState(`notified:${sessionId}:${record.requestId}`, 1, { sessionId });
      await store.log!.append(sessionId, [{ runId: 'r1', seq: 1, event: 'delta', data: '{}' }]);
      await store.claim(record.requestId, answered(['a'], '', Date.now()));
      const keys = await keysUnder(`${namespace}:`);
      // Question, session pointer, three state rows, and the log's run order, sizes and one run.
      assert.equal(keys.length, 8, keys.join('\n'));
      const slots = new Set(await Promise.all(keys.map((k) => cluster.keySlot(k))));
      assert.equal(slots.size, 1, `one slot for ${keys.join(', ')}`);
      // Braces of the id are escaped: the tag is the only hash tag.
      assert.ok(
        keys.filter((k) => !k.includes(':interaction:')).every((k) => k.includes('s%7Bodd%7D%25')),
        keys.join('\n'),
      );
      assert.deepEqual(await store.getState(`run:${sessionId}`, { sessionId }), {
        value: { step: 1 },
        version: (await store.getState<{ step: number }>(`run:${sessionId}`, { sessionId }))!.version,
      });
    } finally {
      await store.close();
    }
  });

  it("puts the kit's run state and paused marker of a session in its question's slot", async () => {
    const namespace = `kit${randomBytes(4).toString('hex')}`;
    const store = await openStore(cluster.url, { namespace });
    try {
      const sessionId = `chat-${randomBytes(4).toString('hex')}`;
      const requestId = newRequestId(sessionId);
      await store.create(pendingRecord({ requestId, sessionId, createdAt: Date.now(), expiresAt: Date.now() + HOUR }));
      const runs = new StoredRuns<StoredRun>(store, { keyPrefix: 'run:' });
      await runs.update(sessionId, () => ({ sessionId, rev: 1, updatedAt: Date.now() }));
      const paused = new PausedIndex(store);
      await paused.add(sessionId, { requestId });
      assert.deepEqual(await paused.list(), [sessionId]);
      assert.equal((await runs.get(sessionId))?.rev, 1);
      const keys = await keysUnder(`${namespace}:`);
      assert.equal(keys.length, 4, keys.join('\n'));
      assert.equal(new Set(await Promise.all(keys.map((k) => cluster.keySlot(k)))).size, 1, keys.join('\n'));
    } finally {
      await store.close();
    }
  });

  it('lists state under a prefix from every master, with the logical keys', async () => {
    const store = await openStore(cluster.url, { namespace: `list${randomBytes(4).toString('hex')}` });
    try {
      const sessions = Array.from({ length: 60 }, (_, i) => `sess-${i}{x}`);
      await Promise.all(sessions.map((s) => store.putState(`paused:${s}`, { requestId: '' }, { sessionId: s })));
      await store.putState('pausedx', 1);
      const masters = new Set(
        await Promise.all(sessions.map(async (s) => cluster.masterOf(await cluster.keySlot(`{${sessionSlotTag(s)}}`)))),
      );
      assert.equal(masters.size, 3, 'the markers are spread over all three masters');
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listState<{ requestId: string }>('paused:', { cursor, limit: 7 });
        listed.push(...page.entries.map((e) => e.key));
        cursor = page.cursor;
      } while (cursor !== undefined);
      assert.deepEqual([...new Set(listed)].sort(), sessions.map((s) => `paused:${s}`).sort());
    } finally {
      await store.close();
    }
  });

  it('acknowledges a write only once a replica has it', async () => {
    const backend = await openRedisClusterBackend(clusterTarget(), { timeoutMs: 1500, waitReplicas: 1 });
    try {
      const key = `ack${randomBytes(4).toString('hex')}`;
      assert.equal(await backend.swap({ key, expect: { kind: 'absent' }, next: 'v', deadline: Date.now() + 1000 }), true);
      const master = await cluster.masterOf(await cluster.keySlot(key));
      const replicaPort = Number(/slave0:ip=[^,]+,port=(\d+)/.exec(await cluster.cli(master, 'INFO', 'replication'))![1]);
      // Straight after the acknowledgement, the replica itself serves the row.
      const replica = createClient({ url: `redis://127.0.0.1:${replicaPort}` });
      await replica.connect();
      try {
        await replica.sendCommand(['READONLY']);
        assert.equal(await replica.get(key), 'v');
      } finally {
        await replica.close();
      }
    } finally {
      await backend.close();
    }
  });
});
