/**
 * What one operation costs in backend calls: a compare-and-set with a known version, a claim right after
 * the lookup that read the record, and a mark right after the claim each go out as one swap with no read.
 * A stale version or a row changed by another writer still ends in the right answer, after a read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { createKeyedStore } from '../../../plugin/store/keyed-store.js';
import { createMemoryBackend } from '../../../plugin/store/memory-backend.js';
import { openPostgresBackend } from '../../../plugin/store/postgres-backend.js';
import { openSqliteBackend } from '../../../plugin/store/sqlite-backend.js';
import { countingBackend } from '../../helpers/counting-backend.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import type { InteractionRecord, PendingStore } from '../../../plugin/store/types.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';

const record = (requestId: string, sessionId = 's1'): InteractionRecord => ({
  requestId,
  toolCallId: `call_${requestId}`,
  sessionId,
  form: { title: 'Pick', mode: 'text' },
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
  status: 'pending',
});

/**
 * One question's store calls, as the kit makes them: ask (create), the card's lookup (currentOf), the
 * answer's lookup and claim, the ToolResult's mark, and the run state written before and after.
 */
async function question(store: PendingStore, requestId: string): Promise<void> {
  const paused = await store.casState(`run:${requestId}`, { step: 'asking' }, { ifVersion: null });
  await store.create(record(requestId, `s-${requestId}`));
  await store.currentOf(`s-${requestId}`);
  await store.get(requestId);
  const answer = { selections: [], customInput: 'x', cancelled: false };
  assert.equal((await store.claim(requestId, { status: 'answered', at: Date.now(), answer })).ok, true);
  await store.markToolResultWritten(requestId);
  assert.ok(await store.casState(`run:${requestId}`, { step: 'answered' }, { ifVersion: paused! }));
}
const QUESTION_CALLS = { read: 3, swap: 6, scan: 0, readMany: 0 };

let dir: TempDir;
let postgres: PostgresServer;
before(async () => {
  dir = await makeTempDir();
  postgres = await startPostgresServer();
});
after(async () => {
  await dir.remove();
  await postgres.stop();
});
let files = 0;

for (const [name, open] of [
  ['memory', async () => createMemoryBackend()],
  ['sqlite', () => openSqliteBackend(dir.file(`rt${files++}.db`), { timeoutMs: 1500 })],
  // A schema of its own per backend, as each SQLite backend has a file of its own.
  ['postgres', () => openPostgresBackend({ url: postgres.url, label: 'postgres (test)' }, { timeoutMs: 1500, namespace: `rt${files++}` })],
] as const) {
  describe(`store round trips: ${name}`, () => {
    it('a versioned compare-and-set is one swap; a stale version is refused after one read', async () => {
      const { wrapped, take } = countingBackend(await open());
      const store = createKeyedStore(wrapped);
      try {
        const v1 = await store.casState('run', { n: 1 }, { ifVersion: null });
        assert.ok(v1);
        assert.deepEqual(take().counts, { read: 0, swap: 1, scan: 0, readMany: 0 });
        const v2 = await store.casState('run', { n: 2 }, { ifVersion: v1 });
        assert.ok(v2 && v2 !== v1);
        assert.deepEqual(take().counts, { read: 0, swap: 1, scan: 0, readMany: 0 });
        assert.equal(await store.casState('run', { n: 3 }, { ifVersion: v1 }), undefined, 'the old version loses');
        assert.deepEqual(take().counts, { read: 1, swap: 1, scan: 0, readMany: 0 });
        assert.deepEqual((await store.getState('run'))?.value, { n: 2 });
        take();
        assert.equal(await store.deleteState('run', v2), true);
        assert.deepEqual(take().counts, { read: 0, swap: 1, scan: 0, readMany: 0 });
      } finally {
        await store.close();
      }
    });

    it('create is two swaps; a claim after the lookup and the mark after it are one swap each', async () => {
      const { wrapped, take } = countingBackend(await open());
      const store = createKeyedStore(wrapped);
      try {
        await store.create(record('r1'));
        assert.deepEqual(take().counts, { read: 0, swap: 2, scan: 0, readMany: 0 });
        await store.get('r1');
        take();
        const claimed = await store.claim('r1', {
          status: 'answered',
          at: Date.now(),
          answer: { selections: [], customInput: 'x', cancelled: false },
        });
        assert.equal(claimed.ok, true);
        assert.deepEqual(take().counts, { read: 0, swap: 1, scan: 0, readMany: 0 });
        await store.markToolResultWritten('r1');
        assert.deepEqual(take().counts, { read: 0, swap: 1, scan: 0, readMany: 0 });
        assert.equal((await store.get('r1'))?.toolResultWritten, true);
      } finally {
        await store.close();
      }
    });

    it('a claim whose remembered row another writer changed still has exactly one winner', async () => {
      // Two stores on one backend stand for two instances: each remembers its own rows.
      const backend = await open();
      const a = createKeyedStore(backend);
      const b = createKeyedStore(backend);
      try {
        await a.create(record('r2'));
        await a.get('r2');
        await b.get('r2');
        const answer = { selections: [], customInput: 'x', cancelled: false };
        const first = await b.claim('r2', { status: 'answered', at: Date.now(), answer });
        const second = await a.claim('r2', { status: 'cancelled', at: Date.now(), answer });
        assert.equal(first.ok, true);
        assert.equal(second.ok, false);
        assert.equal(!second.ok && second.reason, 'already_resolved', 'decided on a fresh read, not on the remembered pending row');
      } finally {
        await backend.close();
      }
    });

    it('a question from ask to answer costs the same calls on every backend', async () => {
      const { wrapped, take } = countingBackend(await open());
      const store = createKeyedStore(wrapped);
      try {
        take();
        await question(store, 'q1');
        assert.deepEqual(take().counts, QUESTION_CALLS);
      } finally {
        await store.close();
      }
    });

    it('reads many interactions in one round trip', async () => {
      const { wrapped, take } = countingBackend(await open());
      const store = createKeyedStore(wrapped);
      try {
        await store.create(record('m1', 's-m1'));
        await store.create(record('m2', 's-m2'));
        take();
        const got = await store.getMany(['m2', 'nope', 'm1']);
        assert.deepEqual(take().counts, { read: 0, swap: 0, scan: 0, readMany: 1 });
        assert.deepEqual(
          got.map((r) => r?.requestId),
          ['m2', undefined, 'm1'],
        );
      } finally {
        await store.close();
      }
    });

    it('lists state entries under a prefix, page by page', async () => {
      const store = createKeyedStore(await open());
      try {
        for (let i = 0; i < 12; i++) await store.putState(`paused:s${String(i).padStart(2, '0')}`, i);
        await store.putState('pausedX', 1);
        await store.putState('paused:gone', 1, { ttlMs: 1 });
        await new Promise((r) => setTimeout(r, 5));
        const seen = new Map<string, number>();
        let cursor: string | undefined;
        do {
          const page = await store.listState<number>('paused:', { ...(cursor ? { cursor } : {}), limit: 5 });
          for (const { key, value, version } of page.entries) {
            seen.set(key, value);
            assert.equal((await store.getState(key))?.version, version, 'each entry with its version');
          }
          cursor = page.cursor;
        } while (cursor);
        const want = Array.from({ length: 12 }, (_, i) => [`paused:s${String(i).padStart(2, '0')}`, i] as const);
        assert.deepEqual([...seen].sort(), want, 'live entries under the prefix, with their values; none past its TTL');
      } finally {
        await store.close();
      }
    });
  });
}

describe('store round trips: postgres statements', () => {
  it('sends one statement per backend call, so a call is one round trip', async () => {
    const { wrapped, take } = countingBackend(
      await openPostgresBackend({ url: postgres.url, label: 'postgres (test)' }, { timeoutMs: 1500, namespace: 'rt_statements' }),
    );
    const store = createKeyedStore(wrapped);
    const query = Client.prototype.query;
    let statements = 0;
    Client.prototype.query = function (this: Client, ...args: Parameters<Client['query']>) {
      statements += 1;
      return query.apply(this, args);
    } as Client['query'];
    try {
      take();
      await question(store, 'q-statements');
      assert.equal(statements, take().total, 'one statement per backend call');
      assert.equal(statements, QUESTION_CALLS.read + QUESTION_CALLS.swap);
    } finally {
      Client.prototype.query = query;
      await store.close();
    }
  });
});
