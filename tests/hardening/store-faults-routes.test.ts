/**
 * Store faults seen through the routes of the demo app with a paused run: Redis, PostgreSQL or a Redis
 * Cluster frozen (SIGSTOP of the server and, for PostgreSQL, every backend it forked; of every node of the
 * cluster) or killed mid-run and restarted on the same data, SQLite write-locked by another connection past its busy timeout. The continue must
 * answer 503 `store_unavailable` and settle before a 2.5 s guard (a correctness bound: the store's 1.5 s
 * budget plus slack, never a hang), consume nothing, and once the store is back the same answer succeeds
 * and the run continues, with the model handed the answer once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { openStore, type PendingStore } from '../../plugin/index.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';
import { startHarness, type Harness } from '../demo/harness.js';
import { answerBody, postStream, type StreamResult } from '../demo/sse-client.js';
import { startAskingModel } from './helpers/asking-model.js';
import { deliveries } from './helpers/deliveries.js';

const GUARD_MS = 2500;

async function settles<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), GUARD_MS)));
  const result = await Promise.race([work, guard]);
  clearTimeout(timer);
  assert.notEqual(result, 'hung', `no answer within the ${GUARD_MS} ms guard`);
  return result as T;
}

/** Retry `fn` until it stops failing (the store coming back), for at most 10 s. */
async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const giveUp = Date.now() + 10_000;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > giveUp) throw new Error(`still failing after 10 s: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Scenario {
  h: Harness;
  model: ScriptedModel;
  sessionId: string;
  callId: string;
  requestId: string;
}

async function pausedRun(h: Harness, model: ScriptedModel, sessionId: string): Promise<Scenario> {
  const callId = `ask-${sessionId}`;
  const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: `ask ${callId}` });
  const requestId = chat.events.find((e) => e.event === 'user_input_required')?.data.id as string;
  assert.ok(requestId, chat.raw);
  return { h, model, sessionId, callId, requestId };
}

const cont = (s: Scenario) =>
  postStream(`${s.h.url}/api/chat/continue`, answerBody(s.sessionId, s.requestId, ['implement'], 'after the outage'));

function assertUnavailable(r: StreamResult) {
  assert.equal(r.status, 503, r.raw);
  assert.equal(r.json?.error?.code, 'store_unavailable');
}

/** After the outage: the same card is still pending, the retry is accepted and the run goes on, once. */
async function assertRecovers(s: Scenario) {
  const pending = await eventually(
    async () =>
      (await (await fetch(`${s.h.url}/api/interactions/pending?sessionId=${s.sessionId}`)).json()) as {
        pending?: { id: string; status: string } | null;
      },
    (v) => v.pending !== undefined,
  );
  assert.deepEqual([pending.pending?.id, pending.pending?.status], [s.requestId, 'pending'], 'the record is intact and still pending');
  const retry = await eventually(
    () => cont(s),
    (r) => r.status !== 503,
  );
  assert.equal(retry.status, 200, retry.raw);
  assert.deepEqual(retry.events.at(-1), { event: 'done', data: { reason: 'completed' } });
  const told = deliveries(s.model.requests, s.callId);
  assert.equal(told.length, 1, 'the model is handed the answer once');
  const answered = s.h.audit.filter((e) => e.requestId === s.requestId && e.event === 'answered');
  assert.equal(answered.length, 1);
  assert.ok(
    s.h.audit.some((e) => e.requestId === s.requestId && e.event === 'rejected' && e.reason === 'store_unavailable'),
    'the 503 is audited',
  );
}

/** What the servers' test helpers offer (tests/helpers/redis-server.ts, postgres-server.ts, redis-cluster.ts). */
interface StoreServer {
  readonly url: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
  pause(): void;
  resume(): void;
  restart(): Promise<void>;
}

const SERVERS: Array<{ name: string; start: () => Promise<StoreServer> }> = [
  // Persisted, so a killed and restarted redis-server has the record back (PostgreSQL keeps every commit).
  { name: 'redis', start: () => startRedisServer({ persist: true }) },
  { name: 'postgres', start: startPostgresServer },
  // Every node frozen, as one redis-server is: with the session's master alone frozen, its replica would
  // be promoted a second later (a failover, tests/plugin/store/redis-cluster-failover.test.ts), not an
  // outage. Killed: all six at once, and started again from their append-only files and nodes.conf.
  { name: 'redis-cluster', start: () => startRedisCluster({ persist: true }) },
];

for (const { name, start } of SERVERS) {
  describe(`${name} stopped mid-run, through the routes`, () => {
    let server: StoreServer;
    let store: PendingStore;
    let model: ScriptedModel;
    let h: Harness;
    before(async () => {
      server = await start();
      store = await openStore(server.url, { namespace: 'faults-routes' });
      model = await startAskingModel();
      h = await startHarness({ store, model });
    });
    after(async () => {
      server.resume();
      await h.close();
      await store.close();
      await model.close();
      await server.stop();
    });

    it('SIGSTOP: continue answers 503 store_unavailable before the guard; after SIGCONT the record is intact and the retry succeeds', async () => {
      const s = await pausedRun(h, model, 'frozen');
      server.pause();
      try {
        assertUnavailable(await settles(cont(s)));
        // GET pending must not hang either.
        const pending = await settles(fetch(`${h.url}/api/interactions/pending?sessionId=frozen`));
        assert.equal(pending.status, 503);
        assert.equal(((await pending.json()) as { error: { code: string } }).error.code, 'store_unavailable');
      } finally {
        server.resume();
      }
      await assertRecovers(s);
    });

    it('kill: continue answers 503 store_unavailable before the guard; after a restart the record is intact and the retry succeeds', async () => {
      const s = await pausedRun(h, model, 'killed');
      await server.kill();
      assertUnavailable(await settles(cont(s)));
      await server.restart();
      await assertRecovers(s);
    });
  });
}

describe('SQLite locked past its busy timeout, through the routes', () => {
  let dir: TempDir;
  before(async () => {
    dir = await makeTempDir('ask-user-lock-');
  });
  after(() => dir.remove());

  it('continue answers 503 store_unavailable before the guard while another connection holds the write lock; the retry succeeds after', async () => {
    const file = dir.file('locked.db');
    const store = await openStore(`sqlite://${file}`, { namespace: 'locked' });
    const model = await startAskingModel();
    const h = await startHarness({ store, model });
    // node:sqlite, as the store: SQLite's locks are per process, so another SQLite library here would not conflict.
    const locker = new DatabaseSync(file);
    try {
      const s = await pausedRun(h, model, 'locked');
      locker.exec('BEGIN EXCLUSIVE');
      try {
        assertUnavailable(await settles(cont(s)));
        // Reads go on under WAL: the card is still shown while the writer is locked out.
        const pending = (await (await fetch(`${h.url}/api/interactions/pending?sessionId=locked`)).json()) as { pending: { id: string } };
        assert.equal(pending.pending.id, s.requestId);
      } finally {
        locker.exec('ROLLBACK');
      }
      await assertRecovers(s);
    } finally {
      locker.close();
      await h.close();
      await store.close();
      await model.close();
    }
  });
});
