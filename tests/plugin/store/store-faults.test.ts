/**
 * A store that cannot answer must say so (StoreUnavailableError) and settle, never hang or claim "not
 * found"; and what it refused must not happen later behind the caller's back, so a retry is safe.
 * The 2.5 s guard is a correctness bound (the 1.5 s budget plus slack), not a speed check.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import { openStore } from '../../../plugin/store/open-store.js';
import { StoreUnavailableError, type PendingStore } from '../../../plugin/store/types.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { answered, pendingRecord } from './fixtures/records.js';
import { until } from './log-contract.js';

const GUARD_MS = 2500;

/** Resolves with what `operation` settled with, or fails if it is still pending when the guard fires. */
async function settlesWithin<T>(operation: Promise<T>): Promise<PromiseSettledResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), GUARD_MS)));
  const settled = operation.then(
    (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
    (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
  );
  const result = await Promise.race([settled, guard]);
  clearTimeout(timer);
  assert.notEqual(result, 'hung', `the store operation did not settle within the ${GUARD_MS} ms guard`);
  return result as PromiseSettledResult<T>;
}

async function assertUnavailable(operation: Promise<unknown>, what: string) {
  const result = await settlesWithin(operation);
  assert.equal(result.status, 'rejected', `${what} should have failed while the store is down`);
  if (result.status === 'rejected') {
    assert.ok(result.reason instanceof StoreUnavailableError, `${what} rejected with ${String(result.reason)}, not StoreUnavailableError`);
    assert.equal(result.reason.code, 'store_unavailable');
  }
}

/** Retries `operation` until it succeeds, for a store coming back. */
async function eventually<T>(operation: () => Promise<T>, forMs = 10_000): Promise<T> {
  const giveUp = Date.now() + forMs;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() > giveUp) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const freshRecord = () => pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + 10 * 60_000 });
const answer = () => answered(['pg'], '', Date.now());

describe('store faults: redis', () => {
  let redis: RedisServer;
  let store: PendingStore;
  before(async () => {
    redis = await startRedisServer({ persist: true });
    store = await openStore(redis.url, { namespace: 'faults' });
  });
  after(async () => {
    await store.close();
    await redis.stop();
  });

  it('fails fast while redis is paused, and the refused claim never lands after it resumes', async () => {
    const record = freshRecord();
    await store.create(record);
    redis.pause();
    try {
      await assertUnavailable(store.claim(record.requestId, answer()), 'claim');
      await assertUnavailable(store.get(record.requestId), 'get');
      await assertUnavailable(store.putState('run', 1, { ifVersion: null }), 'putState');
    } finally {
      redis.resume();
    }
    // The stuck commands run now; their deadlines have passed, so none of them may write.
    const after = await eventually(() => store.get(record.requestId));
    assert.equal(after?.status, 'pending', 'the claim that timed out must not have consumed the interaction');
    assert.equal(await store.getState('run'), undefined, 'the putState that timed out must not have written');
    const retry = await store.claim(record.requestId, answer());
    assert.equal(retry.ok, true, 'the retry after the outage wins');
  });

  it('fails fast while redis is down, and works again with the record intact once it is back', async () => {
    const record = freshRecord();
    await store.create(record);
    await redis.kill();
    await assertUnavailable(store.get(record.requestId), 'get');
    await assertUnavailable(store.claim(record.requestId, answer()), 'claim');
    await assertUnavailable(store.currentOf(record.sessionId), 'currentOf');
    await redis.restart();
    const back = await eventually(() => store.get(record.requestId));
    assert.equal(back?.status, 'pending');
    assert.equal((await store.claim(record.requestId, answer())).ok, true);
  });

  it('rejects openStore with StoreUnavailableError when nothing listens', async () => {
    const down = await startRedisServer();
    const url = down.url;
    await down.stop();
    await assertUnavailable(openStore(url), 'openStore');
  });
});

describe('store faults: postgres', () => {
  let postgres: PostgresServer;
  let store: PendingStore;
  before(async () => {
    postgres = await startPostgresServer();
    store = await openStore(postgres.url, { namespace: 'faults' });
  });
  after(async () => {
    await store.close();
    await postgres.stop();
  });

  it('fails fast while postgres is paused, and the refused claim never lands after it resumes', async () => {
    const record = freshRecord();
    await store.create(record);
    postgres.pause();
    try {
      await assertUnavailable(store.claim(record.requestId, answer()), 'claim');
      await assertUnavailable(store.get(record.requestId), 'get');
      await assertUnavailable(store.putState('run', 1, { ifVersion: null }), 'putState');
      await assertUnavailable(store.log!.append(record.sessionId, [{ runId: 'r', seq: 1, event: 'e', data: '{}' }]), 'log append');
    } finally {
      postgres.resume();
    }
    // The stuck statements run now; their deadlines have passed, so none of them may write.
    const after = await eventually(() => store.get(record.requestId));
    assert.equal(after?.status, 'pending', 'the claim that timed out must not have consumed the interaction');
    assert.equal(await store.getState('run'), undefined, 'the putState that timed out must not have written');
    const retry = await store.claim(record.requestId, answer());
    assert.equal(retry.ok, true, 'the retry after the outage wins');
  });

  it('fails fast while postgres is down, and works again with the record intact once it is back', async () => {
    const record = freshRecord();
    await store.create(record);
    const seen: Array<string | undefined> = [];
    const stop = await store.log!.watch(record.sessionId, (signal) => seen.push(signal));
    await postgres.kill();
    await assertUnavailable(store.get(record.requestId), 'get');
    await assertUnavailable(store.claim(record.requestId, answer()), 'claim');
    await assertUnavailable(store.currentOf(record.sessionId), 'currentOf');
    await assertUnavailable(store.log!.read(record.sessionId), 'log read');
    await postgres.restart();
    const back = await eventually(() => store.get(record.requestId));
    assert.equal(back?.status, 'pending');
    assert.equal((await store.claim(record.requestId, answer())).ok, true);
    // The watcher's connection came back too: it was woken for what it may have missed, and hears the log again.
    await until('the watcher is woken after the reconnect', () => seen.includes(undefined));
    seen.length = 0;
    await store.log!.signal(record.sessionId, 'after');
    await until('the watcher hears signals again', () => seen.includes('after'));
    stop();
  });

  it('rejects openStore with StoreUnavailableError when nothing listens, or nothing answers', async () => {
    const down = await startPostgresServer();
    const url = down.url;
    down.pause();
    try {
      await assertUnavailable(openStore(url, { namespace: 'paused_open' }), 'openStore of a paused server');
    } finally {
      down.resume();
      await down.stop();
    }
    await assertUnavailable(openStore(url), 'openStore');
  });
});

describe('store faults: sqlite', () => {
  let dir: TempDir;
  before(async () => {
    dir = await makeTempDir('ask-user-faults-');
  });
  after(async () => {
    await dir.remove();
  });

  it('fails with StoreUnavailableError while another connection holds the write lock, then recovers', async () => {
    const file = dir.file('locked.db');
    const store = await openStore(`sqlite://${file}`, { namespace: 'locked' });
    const record = freshRecord();
    await store.create(record);
    // A second connection (as another process would have) takes the write lock and sits on it. node:sqlite,
    // as the store: SQLite's locks are per process, so another SQLite library here would not conflict.
    const locker = new DatabaseSync(file);
    locker.exec('BEGIN EXCLUSIVE');
    try {
      await assertUnavailable(store.claim(record.requestId, answer()), 'claim');
      await assertUnavailable(store.putState('run', 1), 'putState');
      // WAL readers are not blocked by a writer, so reads still answer truthfully.
      assert.equal((await store.get(record.requestId))?.status, 'pending');
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    assert.equal((await store.get(record.requestId))?.status, 'pending', 'the refused claim changed nothing');
    assert.equal((await store.claim(record.requestId, answer())).ok, true);
    await store.close();
  });

  it('rejects openStore with StoreUnavailableError when the file cannot be opened', async () => {
    // A directory where the database file should be.
    await assertUnavailable(openStore(`sqlite://${dir.path}`), 'openStore');
  });
});
