/**
 * One node:sqlite connection whose statements never hold the event loop for long. `DatabaseSync` runs a
 * statement on the calling thread, so SQLite's own busy wait would freeze the whole server for as long as
 * another process holds the write lock (up to the store's budget, 1.5 s by default). Here SQLite waits at
 * most BUSY_SLICE_MS; a statement that still finds the file locked is tried again on a timer, with the event
 * loop free in between, until its time limit passes.
 */
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from 'node:sqlite';
import { StoreUnavailableError } from './types.js';

/** SQLite's busy timeout per attempt: long enough for another process's commit, short enough not to stall. */
export const BUSY_SLICE_MS = 2;
/** Pauses between attempts on a locked file; the last one repeats. */
const RETRY_DELAYS_MS = [1, 2, 4, 8, 16, 25];
const SQLITE_BUSY = 5;

export type Row = Record<string, SQLOutputValue>;

/** SQLITE_BUSY and its extended codes (BUSY_RECOVERY, BUSY_SNAPSHOT, BUSY_TIMEOUT). */
function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === SQLITE_BUSY;
}

export class SqliteConnection {
  readonly #db: DatabaseSync;
  readonly #label: string;
  /** Prepared once per distinct SQL text: preparing is most of a small statement's cost. */
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  constructor(file: string, label: string) {
    this.#db = new DatabaseSync(file, { timeout: BUSY_SLICE_MS });
    this.#label = label;
  }

  /** The rows `sql` returns; a locked file is retried until `until` (epoch ms), then StoreUnavailableError. */
  all(sql: string, params: readonly SQLInputValue[], until: number): Promise<Row[]> {
    return this.#untilFree(until, () => this.#prepared(sql).all(...params));
  }

  /**
   * `body` as one IMMEDIATE transaction, all of it in one synchronous step: nothing else that uses this
   * connection can run inside it, so the backend's swaps and the event log share one connection (and one
   * lock). A file locked by another process is waited out as for `all`; a lock got after `until` is given
   * back with nothing written. `body` may run again after a busy rollback, so it must be safe to repeat.
   */
  transaction<T>(until: number, body: (all: (sql: string, ...params: SQLInputValue[]) => Row[]) => T): Promise<T> {
    return this.#untilFree(until, () => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        if (Date.now() > until)
          throw new StoreUnavailableError(`${this.#label}: the write lock came after the deadline; nothing was written`);
        const result = body((sql, ...params) => this.#prepared(sql).all(...params));
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        // SQLite may have rolled back already (some errors do); then there is nothing left to undo.
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  /** Runs statements that return nothing (pragmas, DDL), with the same retries. */
  exec(sql: string, until: number): Promise<void> {
    return this.#untilFree(until, () => this.#db.exec(sql));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }

  #prepared(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)));
    return statement;
  }

  async #untilFree<T>(until: number, run: () => T): Promise<T> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) throw new StoreUnavailableError(`${this.#label} is closed`);
      try {
        return run();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (Date.now() >= until) {
          throw new StoreUnavailableError(
            `${this.#label} stayed locked by another connection for ${Date.now() - started} ms (SQLITE_BUSY); the statement was not applied, retry later`,
            { cause: error },
          );
        }
      }
      // Jittered, so processes that collided do not retry in step.
      const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]! * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, until - Date.now()))));
    }
  }
}
