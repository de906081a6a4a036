import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { encodeEnvelope } from '../../../plugin/store/backend.js';
import { createKeyedStore } from '../../../plugin/store/keyed-store.js';
import { openStore } from '../../../plugin/store/open-store.js';
import { openPostgresBackend, PostgresBackend, prefixEnd } from '../../../plugin/store/postgres-backend.js';
import { SCHEMA_VERSION } from '../../../plugin/store/postgres-schema.js';
import { StoreError } from '../../../plugin/store/store-errors.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import { backendContract } from './backend-contract.js';
import { answered, HOUR, MINUTE, pendingRecord } from './fixtures/records.js';
import { until } from './log-contract.js';
import { storeContract } from './store-contract.js';

let postgres: PostgresServer;
before(async () => {
  postgres = await startPostgresServer();
});
after(async () => {
  await postgres.stop();
});

const target = () => {
  const parsed = parseStoreUrl(postgres.url);
  assert.equal(parsed.kind, 'postgres');
  return parsed as Extract<typeof parsed, { kind: 'postgres' }>;
};

storeContract('postgres', (options) => openStore(postgres.url, options));
backendContract('postgres', () => openPostgresBackend(target(), { timeoutMs: 1500, namespace: 'backend_contract' }));

/** A plain connection of the test's own, to look at what the store left in the database. */
async function observer(): Promise<Client> {
  const client = new Client({ connectionString: postgres.url });
  await client.connect();
  return client;
}

describe('postgres backend specifics', () => {
  it('names the backend postgres and keeps the password out of its label', async () => {
    const store = await openStore(postgres.url, { namespace: 'label' });
    try {
      assert.equal(store.kind, 'postgres');
      const backend = await PostgresBackend.open(target(), { timeoutMs: 1500, namespace: 'label' });
      assert.equal(backend.label, `postgres://127.0.0.1:${postgres.port}/postgres`);
      assert.ok(!backend.label.includes('not-checked'));
      await backend.close();
    } finally {
      await store.close();
    }
  });

  it('opens pipelined connections as load needs them, never more than postgresPoolSize', async () => {
    const client = await observer();
    const pids = async () =>
      (
        await client.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'ask-user-kit' AND pid <> pg_backend_pid()`,
        )
      ).rows.map((r) => r.pid);
    const earlier = new Set(await pids());
    const mine = async () => (await pids()).filter((pid) => !earlier.has(pid));
    const store = await openStore(postgres.url, { namespace: 'sized', postgresPoolSize: 3 });
    try {
      for (let i = 0; i < 20; i++) await store.putState('one', i);
      assert.equal((await mine()).length, 1, 'one request at a time needs one connection');
      const results = await Promise.all(Array.from({ length: 300 }, (_, i) => store.putState(`many:${i}`, i)));
      assert.ok(results.every(Boolean));
      const opened = (await mine()).length;
      assert.ok(opened >= 2 && opened <= 3, `${opened} connections for 300 concurrent writes, at most 3`);
      assert.equal((await store.listState('many:', { limit: 1000 })).entries.length, 300);
    } finally {
      await store.close();
      await until('the connections are closed', async () => (await mine()).length === 0);
      await client.end();
    }
  });

  it('creates its tables in a schema named after the namespace, with a version row, once for many openers', async () => {
    // Five instances start together on a fresh namespace: one migrates, the others wait for it and find it done.
    const stores = await Promise.all(
      Array.from({ length: 5 }, () => openStore(postgres.url, { namespace: 'Fresh-App.1', timeoutMs: 5000 })),
    );
    const client = await observer();
    try {
      const { rows: tables } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'Fresh-App.1' ORDER BY table_name`,
      );
      assert.deepEqual(
        tables.map((t) => t.table_name),
        ['kv', 'log_frame', 'log_run', 'log_session', 'meta'],
      );
      const { rows } = await client.query<{ value: string }>(`SELECT value FROM "Fresh-App.1".meta WHERE name = 'schema_version'`);
      assert.deepEqual(
        rows.map((r) => r.value),
        [String(SCHEMA_VERSION)],
      );
      await stores[0]!.putState('k', 1);
      assert.equal((await stores[4]!.getState('k'))?.value, 1, 'the instances share the tables');
      // Another namespace has tables of its own.
      const other = await openStore(postgres.url, { namespace: 'other_app' });
      assert.equal(await other.getState('k'), undefined);
      await other.close();
    } finally {
      await client.end();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('refuses a schema written by a newer kit, with store_unsupported', async () => {
    const store = await openStore(postgres.url, { namespace: 'newer' });
    await store.close();
    const client = await observer();
    try {
      await client.query(`UPDATE newer.meta SET value = $1 WHERE name = 'schema_version'`, [String(SCHEMA_VERSION + 1)]);
      await assert.rejects(
        openStore(postgres.url, { namespace: 'newer' }),
        (e: unknown) => e instanceof StoreError && e.code === 'store_unsupported' && /newer than this ask-user-kit/.test(e.message),
      );
    } finally {
      await client.end();
    }
  });

  it("keeps Keyv's envelope with the state head's version, purgeAt and the physical expiry in columns", async () => {
    const store = await openStore(postgres.url, { namespace: 'columns', retentionMs: 2 * HOUR });
    const client = await observer();
    try {
      const version = await store.casState('run', { step: 1 }, { ifVersion: null, ttlMs: HOUR });
      const record = pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + HOUR });
      await store.create(record);
      const { rows } = await client.query<{ key: string; value: string; version: string | null; purge_at: string | null; ttl: string }>(
        `SELECT key, value, version, purge_at, expires_at - (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ttl
         FROM columns.kv ORDER BY key`,
      );
      const byKey = new Map(rows.map((r) => [r.key, r]));
      const state = byKey.get('columns:state:run')!;
      assert.equal(state.version, version);
      assert.deepEqual(JSON.parse(state.value).value.value, { step: 1 });
      assert.equal(Number(state.purge_at), JSON.parse(state.value).value.purgeAt);
      const interaction = byKey.get(`columns:interaction:${record.requestId}`)!;
      assert.equal(interaction.version, null, 'an interaction row has no state head');
      // Logical end (expiresAt + retention) plus the store's one-minute grace, on the server's clock.
      const ttl = Number(interaction.ttl);
      assert.ok(ttl > 2.9 * HOUR && ttl <= 3 * HOUR + MINUTE, `pending TTL ${ttl} should be expiresAt + retention`);
      await store.claim(record.requestId, answered(['pg'], '', Date.now()));
      const { rows: after } = await client.query<{ ttl: string }>(
        `SELECT expires_at - (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ttl FROM columns.kv WHERE key = $1`,
        [`columns:interaction:${record.requestId}`],
      );
      const tombstone = Number(after[0]!.ttl);
      assert.ok(tombstone > 1.9 * HOUR && tombstone <= 2 * HOUR + MINUTE, `tombstone TTL ${tombstone} should be the retention`);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('reads a row past its physical expiry as absent, lets an insert take its place, and sweeps it', async () => {
    const backend = await PostgresBackend.open(target(), { timeoutMs: 1500, namespace: 'expiry', sweepEveryMs: 50 });
    const client = await observer();
    try {
      const soon = () => Date.now() + 1000;
      const ttlMs = 400;
      const written = Date.now();
      await backend.swap({ key: 'x:short', expect: { kind: 'any' }, next: encodeEnvelope(1, ttlMs), ttlMs, deadline: soon() });
      await backend.swap({ key: 'x:long', expect: { kind: 'any' }, next: encodeEnvelope(2, undefined), deadline: soon() });
      const read = await backend.read('x:short');
      // Only meaningful while the row can still be live: a loaded machine may take longer than its life.
      if (Date.now() - written < ttlMs) assert.ok(read, 'the row reads before its expiry');
      await until('the row reads as absent once past its expiry', async () => (await backend.read('x:short')) === undefined);
      assert.deepEqual(await backend.readMany(['x:short', 'x:long']), [undefined, encodeEnvelope(2, undefined)]);
      assert.deepEqual(
        (await backend.scan('x:', undefined, 10)).entries.map(([k]) => k),
        ['x:long'],
      );
      const raw = encodeEnvelope(1, 30);
      await backend.swap({ key: 'x:gone', expect: { kind: 'any' }, next: raw, ttlMs: 30, deadline: soon() });
      await until('the other row reads as absent too', async () => (await backend.read('x:gone')) === undefined);
      assert.equal(
        await backend.swap({ key: 'x:gone', expect: { kind: 'raw', raw }, next: 'z', deadline: soon() }),
        false,
        'expired rows match nothing',
      );
      assert.equal(await backend.swap({ key: 'x:gone', expect: { kind: 'absent' }, next: 'new', deadline: soon() }), true);
      assert.equal(await backend.read('x:gone'), 'new');
      await until('the sweep deletes the expired row', async () => {
        const { rows } = await client.query(`SELECT 1 FROM expiry.kv WHERE key = 'x:short'`);
        return rows.length === 0;
      });
      const { rows } = await client.query<{ key: string }>(`SELECT key FROM expiry.kv ORDER BY key`);
      assert.deepEqual(
        rows.map((r) => r.key),
        ['x:gone', 'x:long'],
      );
    } finally {
      await client.end();
      await backend.close();
    }
  });

  it('lists a prefix through the primary key: one index range, whatever else the table holds', async () => {
    const store = await openStore(postgres.url, { namespace: 'paged', timeoutMs: 5000 });
    const client = await observer();
    try {
      // State rows on either side of the prefix, enough for the planner to see a table worth an index.
      await client.query(
        `INSERT INTO paged.kv (key, value, version)
         SELECT 'paged:state:' || k || ':' || lpad(i::text, 5, '0'), '{"value":{"version":"v' || i || '","value":' || i || '}}', 'v' || i
         FROM generate_series(1, 3000) i, unnest(ARRAY['a', 'paused', 'z']) k`,
      );
      await client.query('ANALYZE paged.kv');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT key, value FROM paged.kv WHERE key >= $1 AND key < $2 ORDER BY key LIMIT 500`,
        ['paged:state:paused:', prefixEnd('paged:state:paused:')],
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(plan, /Index Scan using kv_pkey/, plan);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listState<number>('paused:', { ...(cursor ? { cursor } : {}), limit: 700 });
        seen.push(...page.entries.map((e) => e.key));
        cursor = page.cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 5, 'pages of 700 over 3000 entries');
      assert.equal(new Set(seen).size, 3000);
      assert.ok(seen.every((k) => k.startsWith('paused:')));
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('bounds a prefix by the next string in code point order', () => {
    assert.equal(prefixEnd('ab:'), 'ab;');
    assert.equal(prefixEnd('a\u{10FFFF}'), 'b');
    assert.equal(prefixEnd('a\uD7FF'), 'a\uE000');
    assert.equal(prefixEnd('\u{10FFFF}'), undefined);
    assert.equal(prefixEnd(''), undefined);
  });
});
