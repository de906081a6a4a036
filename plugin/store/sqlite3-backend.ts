/**
 * The former SQLite backend, kept only while bench/ compares it with node:sqlite: @keyv/sqlite's table `keyv(key PRIMARY KEY, value TEXT)` on one file, shared by any
 * number of processes. @keyv/sqlite creates the table (so a plain Keyv reads the same rows); reads and
 * swaps go through a second connection of the same `sqlite3` driver whose statements are prepared once,
 * because the adapter prepares and finalises a statement on every call. Each swap is a single
 * INSERT/UPDATE/DELETE with the expectation in its WHERE clause, which SQLite applies atomically across
 * processes; @keyv/sqlite's own `delete` reads then deletes in two statements, so it is never a claim.
 *
 * The write deadline is checked by SQLite itself (`julianday('now')`): the file is local, so SQLite's clock
 * is this process's clock, and a statement that waited out a lock past the deadline changes nothing.
 *
 * Durability (`synchronous`, docs in the README): the journal is WAL. With `normal` (the default) a commit
 * is in the WAL file before the statement returns, so it survives kill -9 of any process; only an OS crash
 * or power loss can drop the last commits, as SQLite syncs the WAL at checkpoints. With `full` every commit
 * is synced to the disk too, which also survives power loss and costs one or two fsyncs per write.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import sqlite3 from 'sqlite3';
import { STATE_HEAD, type Backend, type SwapRequest } from './backend.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

export type SqliteSynchronous = 'normal' | 'full';

export interface SqliteBackendOptions {
  /** The store's per-operation budget; the busy timeout is set just inside it. */
  timeoutMs: number;
  /** How often physically expired rows are deleted (SQLite has no TTL of its own). @default 60000 */
  sweepEveryMs?: number;
  /** What a commit survives: `normal` a killed process, `full` a power loss too. @default 'normal' */
  synchronous?: SqliteSynchronous;
}

/** Epoch milliseconds as SQLite sees them. */
// Rounded, not truncated: julianday is a double and would otherwise read a millisecond early.
const SQL_NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;

type Row = Record<string, unknown>;

/** The driver's callbacks as promises, one prepared statement per distinct SQL text. */
function connection(file: string, busyTimeout: number) {
  const statements = new Map<string, sqlite3.Statement>();
  let db!: sqlite3.Database;
  const opened = new Promise<void>((resolve, reject) => {
    db = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve()));
  });
  const all = (sql: string, params: unknown[]) =>
    new Promise<Row[]>((resolve, reject) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      statement.all(params, (error: Error | null, rows: Row[]) => (error ? reject(error) : resolve(rows)));
    });
  return {
    opened: opened.then(() => db.configure('busyTimeout', busyTimeout)),
    all,
    exec: (sql: string) => new Promise<void>((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve()))),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const statement of statements.values()) statement.finalize();
        statements.clear();
        db.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export async function openSqlite3Backend(
  file: string,
  { timeoutMs, sweepEveryMs = 60_000, synchronous = 'normal' }: SqliteBackendOptions,
): Promise<Backend> {
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new TypeError(`synchronous must be 'normal' or 'full', got ${JSON.stringify(synchronous)}`);
  }
  if (file !== ':memory:') await mkdir(dirname(file), { recursive: true });
  // Waiting on another process's lock must end before the budget does, with SQLITE_BUSY.
  const busyTimeout = Math.max(10, timeoutMs - Math.min(300, Math.floor(timeoutMs / 3)));
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout });
  // Failures reach callers through rejected queries; the adapter's event only must not go unheard.
  adapter.on('error', () => undefined);
  const table = adapter.opts.table ?? 'keyv';
  const label = `sqlite://${file}`;
  let conn: ReturnType<typeof connection> | undefined;

  try {
    await withinBudget(`opening ${label}`, timeoutMs, async () => {
      // The adapter creates Keyv's table; WAL lets readers go on while one process writes (the mode is
      // stored in the file). A ':memory:' file is per connection, so there the adapter's one is used.
      await adapter.query('PRAGMA journal_mode = WAL');
      if (file === ':memory:') return;
      conn = connection(file, busyTimeout);
      await conn.opened;
      await conn.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
    });
  } catch (error) {
    await conn?.close().catch(() => undefined);
    await adapter.close().catch(() => undefined);
    throw error;
  }
  const query = (sql: string, ...params: unknown[]): Promise<Row[]> =>
    conn ? conn.all(sql, params) : (adapter.query(sql, ...params) as Promise<Row[]>);

  const sweep = setInterval(() => {
    query(`DELETE FROM ${table} WHERE json_valid(value) AND json_extract(value, '$.expires') < ?`, Date.now()).catch(() => undefined);
  }, sweepEveryMs);
  sweep.unref();

  // A versioned row matches by its head (backend.ts, stateHead): the version right after STATE_HEAD and,
  // if it has one, a purgeAt later than the caller's now.
  // A row without purgeAt lives forever: read it as larger than any epoch ms.
  const VERSION_MATCH = `substr(value, 1, ?) = ? AND IFNULL(json_extract(value, '$.value.purgeAt'), 9e18) > ?`;
  const versionParams = (version: string, liveAt: number) => {
    const head = `${STATE_HEAD}${version}"`;
    return [head.length, head, liveAt];
  };

  async function swap({ key, expect, next, deadline }: SwapRequest): Promise<boolean> {
    let rows: Row[];
    if (next === null) {
      if (expect.kind === 'raw') {
        rows = await query(
          `DELETE FROM ${table} WHERE key = ? AND value = ? AND ${SQL_NOW_MS} <= ? RETURNING key`,
          key,
          expect.raw,
          deadline,
        );
      } else if (expect.kind === 'version') {
        rows = await query(
          `DELETE FROM ${table} WHERE key = ? AND ${VERSION_MATCH} AND ${SQL_NOW_MS} <= ? RETURNING key`,
          key,
          ...versionParams(expect.version, expect.liveAt),
          deadline,
        );
      } else if (expect.kind === 'any') {
        rows = await query(`DELETE FROM ${table} WHERE key = ? AND ${SQL_NOW_MS} <= ? RETURNING key`, key, deadline);
        if (rows.length === 0) return lateOr(true, deadline);
      } else {
        // Deleting where nothing may be is a no-op that needs no lock.
        return true;
      }
    } else if (expect.kind === 'raw') {
      rows = await query(
        `UPDATE ${table} SET value = ? WHERE key = ? AND value = ? AND ${SQL_NOW_MS} <= ? RETURNING key`,
        next,
        key,
        expect.raw,
        deadline,
      );
    } else if (expect.kind === 'version') {
      rows = await query(
        `UPDATE ${table} SET value = ? WHERE key = ? AND ${VERSION_MATCH} AND ${SQL_NOW_MS} <= ? RETURNING key`,
        next,
        key,
        ...versionParams(expect.version, expect.liveAt),
        deadline,
      );
    } else {
      // "WHERE <deadline>" on the SELECT also keeps SQLite's parser from reading ON CONFLICT as a join.
      const onConflict = expect.kind === 'any' ? 'DO UPDATE SET value = excluded.value' : 'DO NOTHING';
      rows = await query(
        `INSERT INTO ${table} (key, value) SELECT ?, ? WHERE ${SQL_NOW_MS} <= ? ON CONFLICT(key) ${onConflict} RETURNING key`,
        key,
        next,
        deadline,
      );
    }
    return rows.length > 0 ? true : lateOr(false, deadline);
  }

  return {
    kind: 'sqlite',
    label,
    read: async (key) => {
      const rows = await query(`SELECT value FROM ${table} WHERE key = ?`, key);
      const raw = rows[0]?.value;
      return typeof raw === 'string' ? raw : undefined;
    },
    swap,
    readMany: async (keys) => {
      // One statement for any number of keys: the list goes in as one JSON array.
      const rows = await query(`SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`, JSON.stringify(keys));
      const found = new Map(rows.map((r) => [String(r.key), r.value]));
      return keys.map((k) => {
        const raw = found.get(k);
        return typeof raw === 'string' ? raw : undefined;
      });
    },
    scan: async (prefix, cursor, limit) => {
      // The primary key's order makes a key range one index walk; the cursor is the last key given.
      const rows = await query(
        `SELECT key, value FROM ${table} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`,
        cursor ?? prefix,
        `${prefix}\u{10FFFF}`,
        limit,
      );
      const entries = rows.flatMap((r): Array<[string, string]> => {
        const key = String(r.key);
        return key.startsWith(prefix) && typeof r.value === 'string' ? [[key, r.value]] : [];
      });
      return rows.length < limit ? { entries } : { entries, cursor: String(rows.at(-1)!.key) };
    },
    close: async () => {
      clearInterval(sweep);
      await conn?.close();
      await adapter.close();
    },
  };
}

/** No row changed: either the expectation failed or the deadline had passed (same clock, so we can tell). */
function lateOr(result: boolean, deadline: number): boolean {
  if (Date.now() > deadline)
    throw new StoreUnavailableError('sqlite write came after its deadline (a lock held too long?); nothing was written');
  return result;
}
