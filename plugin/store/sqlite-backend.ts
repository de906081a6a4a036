/**
 * SQLite backend: @keyv/sqlite's table `keyv(key PRIMARY KEY, value TEXT)` on one file, shared by any
 * number of processes. @keyv/sqlite's own `delete` reads then deletes in two statements, so it is not a
 * claim; the swap here is a single INSERT/UPDATE/DELETE with the expectation in its WHERE clause, run
 * through the adapter's `query` helper, which SQLite applies atomically across processes.
 *
 * The write deadline is checked by SQLite itself (`julianday('now')`): the file is local, so SQLite's clock
 * is this process's clock, and a statement that waited out a lock past the deadline changes nothing.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import type { Backend, SwapRequest } from './backend.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

export interface SqliteBackendOptions {
  /** The store's per-operation budget; the busy timeout is set just inside it. */
  timeoutMs: number;
  /** How often physically expired rows are deleted (SQLite has no TTL of its own). @default 60000 */
  sweepEveryMs?: number;
}

/** Epoch milliseconds as SQLite sees them. */
// Rounded, not truncated: julianday is a double and would otherwise read a millisecond early.
const SQL_NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;

export async function openSqliteBackend(file: string, { timeoutMs, sweepEveryMs = 60_000 }: SqliteBackendOptions): Promise<Backend> {
  if (file !== ':memory:') await mkdir(dirname(file), { recursive: true });
  // Waiting on another process's lock must end before the budget does, with SQLITE_BUSY.
  const busyTimeout = Math.max(10, timeoutMs - Math.min(300, Math.floor(timeoutMs / 3)));
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout });
  // Failures reach callers through rejected queries; the adapter's event only must not go unheard.
  adapter.on('error', () => undefined);
  const table = adapter.opts.table ?? 'keyv';
  const query = (sql: string, ...params: unknown[]) => adapter.query(sql, ...params) as Promise<Array<Record<string, unknown>>>;
  const label = `sqlite://${file}`;

  try {
    // WAL lets readers go on while one process writes; the mode is stored in the file, so set it once.
    await withinBudget(`opening ${label}`, timeoutMs, () => query('PRAGMA journal_mode = WAL'));
  } catch (error) {
    await adapter.close().catch(() => undefined);
    throw error;
  }

  const sweep = setInterval(() => {
    query(`DELETE FROM ${table} WHERE json_valid(value) AND json_extract(value, '$.expires') < ?`, Date.now()).catch(() => undefined);
  }, sweepEveryMs);
  sweep.unref();

  async function swap({ key, expect, next, deadline }: SwapRequest): Promise<boolean> {
    let rows: Array<Record<string, unknown>>;
    if (next === null) {
      if (expect.kind === 'raw') {
        rows = await query(
          `DELETE FROM ${table} WHERE key = ? AND value = ? AND ${SQL_NOW_MS} <= ? RETURNING key`,
          key,
          expect.raw,
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
      const raw = await adapter.get<string>(key);
      return typeof raw === 'string' ? raw : undefined;
    },
    swap,
    close: async () => {
      clearInterval(sweep);
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
