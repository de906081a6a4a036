import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import KeyvSqlite from '@keyv/sqlite';
import { openStore } from '../../../plugin/store/open-store.js';
import { createKeyedStore } from '../../../plugin/store/keyed-store.js';
import { openSqliteBackend } from '../../../plugin/store/sqlite-backend.js';
import { encodeEnvelope } from '../../../plugin/store/backend.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { backendContract } from './backend-contract.js';
import { storeContract } from './store-contract.js';
import { pendingRecord } from './fixtures/records.js';

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
  /** Reads the table through a separate @keyv/sqlite connection, as another process would. */
  async function rows(file: string): Promise<Array<{ key: string; value: string }>> {
    const other = new KeyvSqlite({ uri: `sqlite://${file}` });
    try {
      return (await other.query('SELECT key, value FROM keyv ORDER BY key')) as Array<{ key: string; value: string }>;
    } finally {
      await other.close();
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
