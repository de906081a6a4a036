/**
 * A Redis Cluster master dies (SIGKILL) in the middle of a session: what was acknowledged survives on the
 * promoted replica, and the same store serves again by itself once the cluster has failed over.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { newRequestId } from '../../../plugin/core/request-id.js';
import { openStore } from '../../../plugin/store/open-store.js';
import { sessionSlotTag } from '../../../plugin/store/session-slot.js';
import { StoreUnavailableError, type PendingStore } from '../../../plugin/store/types.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { answered, HOUR, pendingRecord } from './fixtures/records.js';

let cluster: RedisCluster;
let store: PendingStore;
before(async () => {
  cluster = await startRedisCluster();
  store = await openStore(cluster.url, { namespace: 'failover', timeoutMs: 1500 });
});
after(async () => {
  await store?.close();
  await cluster?.stop();
});

/** Retries `work` while the store says it is unavailable, each failure within the store's budget. */
async function once<T>(what: string, work: () => Promise<T>, boundMs = 30_000): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    const started = Date.now();
    try {
      return await work();
    } catch (error) {
      assert.ok(error instanceof StoreUnavailableError, `${what}: ${String(error)}`);
      // 503 within the call timeout (1.5 s), with room for a busy machine.
      assert.ok(Date.now() - started < 3000, `${what} failed after ${Date.now() - started} ms`);
      assert.ok(Date.now() < end, `${what}: the store did not come back within ${boundMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

it('loses no acknowledged answer when the master of its session fails over', async () => {
  const sessionId = 'failover-session';
  const record = pendingRecord({ requestId: newRequestId(sessionId), sessionId, createdAt: Date.now(), expiresAt: Date.now() + HOUR });
  await store.create(record);
  await store.putState(`run:${sessionId}`, { step: 'asked' }, { sessionId });
  // The answer is acknowledged (the HTTP 200): the claim and the run's step after it.
  const claimed = await store.claim(record.requestId, answered(['yes'], '', Date.now()));
  assert.equal(claimed.ok, true);
  await store.putState(`run:${sessionId}`, { step: 'answered' }, { sessionId });

  const slot = await cluster.keySlot(`{${sessionSlotTag(sessionId)}}`);
  const old = await cluster.masterOf(slot);
  const promoted = await cluster.failMasterOf(slot);
  assert.notEqual(promoted, old);

  // The same store finds the promoted replica by itself, and it has everything acknowledged.
  const after = await once('reading the answer', () => store.get(record.requestId));
  assert.equal(after?.status, 'answered');
  assert.deepEqual(after?.resolution, claimed.ok ? claimed.record.resolution : undefined);
  const again = await once('claiming it again', () => store.claim(record.requestId, answered(['no'], '', Date.now())));
  assert.equal(again.ok, false, 'a second answer is refused (409)');
  assert.equal(again.ok === false && again.reason, 'already_resolved');
  assert.deepEqual((await once('reading the run', () => store.getState(`run:${sessionId}`, { sessionId })))?.value, { step: 'answered' });
  // Other sessions, on masters that never failed, kept working throughout.
  await once('a new question', () => store.create(pendingRecord({ requestId: newRequestId('later'), sessionId: 'later' })));
});
