import assert from 'node:assert/strict';
import { copyFile } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../../plugin/store/open-store.js';
import { createKeyedStore } from '../../../plugin/store/keyed-store.js';
import { openSqliteBackend } from '../../../plugin/store/sqlite-backend.js';
import { encodeEnvelope } from '../../../plugin/store/backend.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { backendContract } from './backend-contract.js';
import { storeContract } from './store-contract.js';
import { answered, pendingRecord, T0 } from './fixtures/records.js';
import { StoreUnavailableError } from '../../../plugin/store/types.js';

let dir: TempDir;
before(async () => {
  dir = await makeTempDir('ask-user-sqlite-');
});
after(async () => {
  await dir.remove();
});

storeContract('sqlite', (options) => openStore(`sqlite://${dir.file('contract.db')}`, options));
backendContract('sqlite', () => openSqliteBackend(dir.file('backend.db'), { timeoutMs: 1500 }));

describe('sqlite backend specifics', () => {
  /**
   * Reads the table through a connection of its own, as another process would. Always node:sqlite: SQLite's
   * locks are per process, so a second SQLite library in this process would not see the store's locks.
   */
  async function rows(file: string): Promise<Array<{ key: string; value: string }>> {
    const other = new DatabaseSync(file);
    try {
      return other.prepare('SELECT key, value FROM keyv ORDER BY key').all() as Array<{ key: string; value: string }>;
    } finally {
      other.close();
    }
  }

  it('stores Keyv envelopes with a physical expiry under the namespace prefix', async () => {
    const file = dir.file('envelope.db');
    const store = await openStore(`sqlite://${file}`, { namespace: 'envelope' });
    const record = pendingRecord();
    const before = Date.now();
    await store.create(record);
    await store.close();
    const stored = await rows(file);
    const row = stored.find((r) => r.key === `envelope:interaction:${record.requestId}`);
    assert.ok(row, `expected the interaction row among ${stored.map((r) => r.key).join(', ')}`);
    const envelope = JSON.parse(row.value) as { value: { record: unknown }; expires: number };
    assert.deepEqual(envelope.value.record, record);
    assert.ok(envelope.expires > before, 'the row carries a TTL so the sweep can drop it');
    assert.ok(stored.some((r) => r.key === `envelope:session:${record.sessionId}`));
  });

  it('sweeps physically expired rows, since SQLite has no TTL of its own', async () => {
    const file = dir.file('sweep.db');
    const backend = await openSqliteBackend(file, { timeoutMs: 1500, sweepEveryMs: 20 });
    const store = createKeyedStore(backend, { namespace: 'sweep' });
    // Straight through the backend: the store itself pads physical TTLs by a minute.
    await backend.swap({
      key: 'sweep:state:short',
      expect: { kind: 'any' },
      next: encodeEnvelope(1, 30),
      ttlMs: 30,
      deadline: Date.now() + 1000,
    });
    await store.putState('long', 2);
    const deadline = Date.now() + 5000;
    while ((await rows(file)).some((r) => r.key === 'sweep:state:short')) {
      assert.ok(Date.now() < deadline, 'the sweep never removed the expired row');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(
      (await rows(file)).map((r) => r.key),
      ['sweep:state:long'],
    );
    await store.close();
  });

  it('creates the parent directory of the file', async () => {
    const store = await openStore(`sqlite://${dir.file('nested/deeper/x.db')}`);
    await store.putState('k', 1);
    await store.close();
  });
});

describe('sqlite files written by the former sqlite3/@keyv/sqlite backend', () => {
  // fixtures/keyv-sqlite3.db was written through openStore by that backend: a pending question, an answered
  // one with its ToolResult written, a run state and a lease (see its commit). Opened on a copy, as opening writes.
  const FIXTURE = fileURLToPath(new URL('./fixtures/keyv-sqlite3.db', import.meta.url));
  const PENDING = 'ask_fixturePending0000000000000';
  const ANSWERED = 'ask_fixtureAnswered000000000000';
  const RUN_VERSION = 'd34f898b-d05e-46c3-86a8-f7fa46e4da81';
  const now = () => T0 + 5 * 60_000;

  it('opens as it is: pending questions, receipts, run states and leases still read', async () => {
    const file = dir.file('old-format.db');
    await copyFile(FIXTURE, file);
    const store = await openStore(`sqlite://${file}`, { now });
    try {
      const pending = await store.currentOf('session-pending');
      assert.equal(pending?.requestId, PENDING);
      assert.equal(pending?.status, 'pending');
      const receipt = await store.get(ANSWERED);
      assert.equal(receipt?.status, 'answered');
      assert.equal(receipt?.resolution?.answer.customInput, 'from sqlite3');
      assert.equal(receipt?.toolResultWritten, true);
      assert.deepEqual(await store.getState('run:session-pending'), {
        value: { step: 3, messages: ['hi', 'which db?'], requestId: PENDING },
        version: RUN_VERSION,
      });
      assert.deepEqual(
        (await store.listState('lease:')).entries.map((e) => [e.key, e.value]),
        [['lease:session-pending', { owner: 'instance-a' }]],
      );
      // And they go on: the question is answered once, the run state moves from the version it had.
      assert.equal((await store.claim(PENDING, answered(['sqlite'], '', now()))).ok, true);
      assert.equal((await store.claim(PENDING, answered(['pg'], '', now()))).ok, false);
      assert.ok(await store.casState('run:session-pending', { step: 4 }, { ifVersion: RUN_VERSION }));
    } finally {
      await store.close();
    }
  });
});

describe('sqlite locked by another connection', () => {
  /** Another connection on `file` that takes the write lock and holds it until `release`. */
  function lockWriter(file: string) {
    const locker = new DatabaseSync(file);
    locker.exec('BEGIN EXCLUSIVE');
    return {
      release: () => {
        if (!locker.isOpen) return;
        locker.exec('ROLLBACK');
        locker.close();
      },
    };
  }

  it('waits a lock out on timers: a claim made while the file is locked wins once the lock goes', async () => {
    const file = dir.file('wait.db');
    const store = await openStore(`sqlite://${file}`, { namespace: 'wait', timeoutMs: 10_000 });
    const record = pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + 60_000 });
    await store.create(record);
    const lock = lockWriter(file);
    try {
      const claim = store.claim(record.requestId, answered(['pg'], '', Date.now()));
      // The claim is waiting on the lock; timers still run, and one of them lets go of it.
      setTimeout(lock.release, 100);
      assert.equal((await claim).ok, true);
    } finally {
      lock.release();
      await store.close();
    }
  });

  it('keeps the event loop free while it waits a lock out, then fails with StoreUnavailableError', async () => {
    const file = dir.file('free-loop.db');
    const timeoutMs = 1500;
    const store = await openStore(`sqlite://${file}`, { namespace: 'loop', timeoutMs });
    const record = pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + 60_000 });
    await store.create(record);
    const lock = lockWriter(file);
    // node:sqlite runs statements on this thread: a busy wait inside SQLite would stop these ticks for the
    // whole budget. The bound is half of it, a correctness limit rather than a speed figure.
    let last = performance.now();
    let longestStall = 0;
    const ticker = setInterval(() => {
      const t = performance.now();
      longestStall = Math.max(longestStall, t - last);
      last = t;
    }, 5);
    try {
      await assert.rejects(store.claim(record.requestId, answered(['pg'], '', Date.now())), StoreUnavailableError);
    } finally {
      clearInterval(ticker);
      lock.release();
    }
    assert.ok(longestStall < timeoutMs / 2, `the event loop stalled for ${Math.round(longestStall)} ms while waiting on the lock`);
    assert.equal((await store.get(record.requestId))?.status, 'pending', 'the refused claim changed nothing');
    await store.close();
  });
});
