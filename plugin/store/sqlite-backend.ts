/**
 * SQLite backend on Node's own `node:sqlite` (no native module to build): Keyv's table
 * `keyv(key VARCHAR(255) PRIMARY KEY, value TEXT)` on one file, shared by any number of processes, created
 * exactly as @keyv/sqlite creates it, so files written by the former sqlite3/@keyv/sqlite backend open as
 * they are and a plain Keyv still reads the rows. Each swap is a single INSERT/UPDATE/DELETE with the
 * expectation in its WHERE clause, which SQLite applies atomically across processes.
 *
 * The write deadline is checked by SQLite itself (`julianday('now')`): the file is local, so SQLite's clock
 * is this process's clock, and a statement that got its lock past the deadline changes nothing. Waiting on
 * another process's lock happens in short slices with the event loop free in between (sqlite-connection.ts).
 *
 * The event log (sqlite-log.ts) keeps its tables in the same file, on the same connection.
 *
 * Durability (`synchronous`, docs in the README): the journal is WAL. With `normal` (the default) a commit
 * is in the WAL file before the statement returns, so it survives kill -9 of any process; only an OS crash
 * or power loss can drop the last commits, as SQLite syncs the WAL at checkpoints. With `full` every commit
 * is synced to the disk too, which also survives power loss and costs one or two fsyncs per write.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { STATE_HEAD, type Backend, type SwapRequest } from './backend.js';
import { SqliteConnection, type Row } from './sqlite-connection.js';
import { SqliteLog } from './sqlite-log.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

export type SqliteSynchronous = 'normal' | 'full';

export interface SqliteBackendOptions {
  /** The store's per-operation budget: how long a read waits out another process's lock. */
  timeoutMs: number;
  /** How often physically expired rows are deleted (SQLite has no TTL of its own). @default 60000 */
  sweepEveryMs?: number;
  /** What a commit survives: `normal` a killed process, `full` a power loss too. @default 'normal' */
  synchronous?: SqliteSynchronous;
}

const TABLE = 'keyv';
/** @keyv/sqlite's own statement, word for word, so both create the same table. */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE}(key VARCHAR(255) PRIMARY KEY, value TEXT )`;

/** Epoch milliseconds as SQLite sees them. */
// Rounded, not truncated: julianday is a double and would otherwise read a millisecond early.
const SQL_NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;

// A versioned row matches by its head (backend.ts, stateHead): the version right after STATE_HEAD and,
// if it has one, a purgeAt later than the caller's now. A row without purgeAt lives forever: read it as
// larger than any epoch ms.
const VERSION_MATCH = `substr(value, 1, ?) = ? AND IFNULL(json_extract(value, '$.value.purgeAt'), 9e18) > ?`;
const versionParams = (version: string, liveAt: number) => {
  const head = `${STATE_HEAD}${version}"`;
  return [head.length, head, liveAt];
};

export async function openSqliteBackend(
  file: string,
  { timeoutMs, sweepEveryMs = 60_000, synchronous = 'normal' }: SqliteBackendOptions,
): Promise<Backend> {
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new TypeError(`synchronous must be 'normal' or 'full', got ${JSON.stringify(synchronous)}`);
  }
  if (file !== ':memory:') await mkdir(dirname(file), { recursive: true });
  const label = `sqlite://${file}`;
  let conn: SqliteConnection | undefined;
  let eventLog: SqliteLog | undefined;
  try {
    await withinBudget(`opening ${label}`, timeoutMs, async () => {
      const until = Date.now() + timeoutMs;
      conn = new SqliteConnection(file, label);
      // WAL lets readers go on while one process writes; the mode is stored in the file.
      await conn.exec('PRAGMA journal_mode = WAL', until);
      await conn.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`, until);
      await conn.exec(CREATE_TABLE, until);
      eventLog = await SqliteLog.on(conn, { label, timeoutMs }, until);
    });
  } catch (error) {
    conn?.close();
    throw error;
  }
  const log = eventLog!;
  const db = conn!;
  /** A read may wait out a lock for the store's whole budget; it writes nothing, so no deadline applies. */
  const read = (sql: string, ...params: Array<string | number>): Promise<Row[]> => db.all(sql, params, Date.now() + timeoutMs);

  const sweep = setInterval(() => {
    db.all(
      `DELETE FROM ${TABLE} WHERE json_valid(value) AND json_extract(value, '$.expires') < ?`,
      [Date.now()],
      Date.now() + timeoutMs,
    ).catch(() => undefined);
    log.sweep().catch(() => undefined);
  }, sweepEveryMs);
  sweep.unref();

  async function swap({ key, expect, next, deadline }: SwapRequest): Promise<boolean> {
    const write = (sql: string, ...params: Array<string | number>) => db.all(sql, params, deadline);
    let rows: Row[];
    if (next === null) {
      if (expect.kind === 'raw') {
        rows = await write(
          `DELETE FROM ${TABLE} WHERE key = ? AND value = ? AND ${SQL_NOW_MS} <= ? RETURNING key`,
          key,
          expect.raw,
          deadline,
        );
      } else if (expect.kind === 'version') {
        rows = await write(
          `DELETE FROM ${TABLE} WHERE key = ? AND ${VERSION_MATCH} AND ${SQL_NOW_MS} <= ? RETURNING key`,
          key,
          ...versionParams(expect.version, expect.liveAt),
          deadline,
        );
      } else if (expect.kind === 'any') {
        rows = await write(`DELETE FROM ${TABLE} WHERE key = ? AND ${SQL_NOW_MS} <= ? RETURNING key`, key, deadline);
        if (rows.length === 0) return lateOr(true, deadline);
      } else {
        // Deleting where nothing may be is a no-op that needs no lock.
        return true;
      }
    } else if (expect.kind === 'raw') {
      rows = await write(
        `UPDATE ${TABLE} SET value = ? WHERE key = ? AND value = ? AND ${SQL_NOW_MS} <= ? RETURNING key`,
        next,
        key,
        expect.raw,
        deadline,
      );
    } else if (expect.kind === 'version') {
      rows = await write(
        `UPDATE ${TABLE} SET value = ? WHERE key = ? AND ${VERSION_MATCH} AND ${SQL_NOW_MS} <= ? RETURNING key`,
        next,
        key,
        ...versionParams(expect.version, expect.liveAt),
        deadline,
      );
    } else {
      // "WHERE <deadline>" on the SELECT also keeps SQLite's parser from reading ON CONFLICT as a join.
      const onConflict = expect.kind === 'any' ? 'DO UPDATE SET value = excluded.value' : 'DO NOTHING';
      rows = await write(
        `INSERT INTO ${TABLE} (key, value) SELECT ?, ? WHERE ${SQL_NOW_MS} <= ? ON CONFLICT(key) ${onConflict} RETURNING key`,
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
    log,
    read: async (key) => {
      const rows = await read(`SELECT value FROM ${TABLE} WHERE key = ?`, key);
      const raw = rows[0]?.value;
      return typeof raw === 'string' ? raw : undefined;
    },
    swap,
    readMany: async (keys) => {
      // One statement for any number of keys: the list goes in as one JSON array.
      const rows = await read(`SELECT key, value FROM ${TABLE} WHERE key IN (SELECT value FROM json_each(?))`, JSON.stringify(keys));
      const found = new Map(rows.map((r) => [String(r.key), r.value]));
      return keys.map((k) => {
        const raw = found.get(k);
        return typeof raw === 'string' ? raw : undefined;
      });
    },
    scan: async (prefix, cursor, limit) => {
      // The primary key's order makes a key range one index walk; the cursor is the last key given.
      const rows = await read(
        `SELECT key, value FROM ${TABLE} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`,
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
      await log.close();
      db.close();
    },
  };
}

/** No row changed: either the expectation failed or the deadline had passed (same clock, so we can tell). */
function lateOr(result: boolean, deadline: number): boolean {
  if (Date.now() > deadline)
    throw new StoreUnavailableError('sqlite write came after its deadline (a lock held too long?); nothing was written');
  return result;
}
