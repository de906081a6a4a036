/**
 * The SQLite backend's event log (event-log.ts), in tables of its own beside Keyv's, on the same file:
 *
 * - `ask_user_log(key, run, seq, event, data, bytes)`: the kept frames, as given;
 * - `ask_user_log_run(key, run, started, frames, bytes)`: a session's runs in the order they started, with
 *   the count and bytes each keeps, so a steady append trims its run without reading it;
 * - `ask_user_log_session(key, expires)`: when the session's frames end (epoch ms, this process's clock;
 *   the file is local, so every process shares it);
 * - `ask_user_log_wake(id, key, origin, signal, at)`: one row per append or signal, for other processes.
 *
 * The log shares the backend's connection: an append is one transaction of several statements run in one
 * synchronous step (SqliteConnection.transaction), so nothing else on the connection can run inside it
 * and the process holds one write lock, not two that wait on each other. Waiting on another process's
 * lock happens in slices with the event loop free, as for the backend (sqlite-connection.ts).
 *
 * Watchers in this process wake right after a local append or signal. Other processes learn of them by
 * polling (WakePoll) while anyone here watches.
 */
import { randomUUID } from 'node:crypto';
import {
  framesAfter,
  keptFrom,
  frameBytes,
  type LogBackend,
  type LogFrame,
  type LogLimits,
  type LogPosition,
  type LogRead,
} from './event-log.js';
import { SqliteConnection, type Row } from './sqlite-connection.js';
import { StoreUnavailableError } from './types.js';

/**
 * How often a backend with watchers looks for other processes' appends and signals (ms). Each look is one
 * `PRAGMA data_version`, which changes only when another connection committed; only then are the new
 * notification rows read. No timer runs, and nothing is read, while nobody in the process watches.
 */
export const WATCH_POLL_MS = 150;

/** Notification rows older than this are pruned by the sweep; a poller is never that far behind. */
const WAKE_KEEP_MS = 60_000;
/** Oldest frames read at a time while trimming a run to its bounds. */
const TRIM_CHUNK = 64;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ask_user_log(
  key TEXT NOT NULL, run TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL, bytes INTEGER NOT NULL,
  PRIMARY KEY(key, run, seq));
CREATE TABLE IF NOT EXISTS ask_user_log_run(
  key TEXT NOT NULL, run TEXT NOT NULL, started INTEGER NOT NULL, frames INTEGER NOT NULL, bytes INTEGER NOT NULL,
  PRIMARY KEY(key, run));
CREATE UNIQUE INDEX IF NOT EXISTS ask_user_log_run_started ON ask_user_log_run(key, started);
CREATE TABLE IF NOT EXISTS ask_user_log_session(key TEXT PRIMARY KEY, expires INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ask_user_log_session_expires ON ask_user_log_session(expires);
CREATE TABLE IF NOT EXISTS ask_user_log_wake(
  id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, origin TEXT NOT NULL, signal TEXT, at INTEGER NOT NULL);
`;

// A session's runs (each at least once, frames or not) with their kept frames, in order; a session past
// its expiry has none, swept or not. The run order's unique index gives rows in (started, seq) order
// without sorting.
const SELECT_FRAMES = `
SELECT r.run AS run, f.seq AS seq, f.event AS event, f.data AS data
FROM ask_user_log_session s
JOIN ask_user_log_run r ON r.key = s.key
LEFT JOIN ask_user_log f ON f.key = r.key AND f.run = r.run`;
const READ_ALL = `${SELECT_FRAMES} WHERE s.key = ?1 AND s.expires >= ?2 ORDER BY r.started, f.seq`;
// After a position: its run and the later ones. Of its run, the frames from the last one at or before the
// position (or all, if none is): framesAfter then sees a first frame that tells it the same as the run's
// real first frame would, and the read stays one index range however long the run. An unknown run makes
// the started bound NULL, so no row comes back.
const READ_AFTER = `${SELECT_FRAMES}
  AND f.seq >= CASE WHEN r.run = ?3
    THEN IFNULL((SELECT MAX(seq) FROM ask_user_log WHERE key = ?1 AND run = ?3 AND seq <= ?4), ?4) ELSE -9e18 END
WHERE s.key = ?1 AND s.expires >= ?2 AND r.started >= (SELECT started FROM ask_user_log_run WHERE key = ?1 AND run = ?3)
ORDER BY r.started, f.seq`;
// The newest run and its last frame (NULLs when it kept none).
const READ_LAST = `${SELECT_FRAMES} AND f.seq = (SELECT MAX(seq) FROM ask_user_log WHERE key = r.key AND run = r.run)
WHERE s.key = ?1 AND s.expires >= ?2 ORDER BY r.started DESC LIMIT 1`;

type Listener = (signal?: string) => void;

export interface SqliteLogOptions {
  /** For error messages. */
  label: string;
  /** How long a statement waits out another process's lock; a write that gets it later changes nothing. */
  timeoutMs: number;
}

export class SqliteLog implements LogBackend {
  /** The log on the backend's connection: creates its tables; `until` bounds the wait for locks. */
  static async on(conn: SqliteConnection, options: SqliteLogOptions, until: number): Promise<SqliteLog> {
    await conn.exec(SCHEMA, until);
    return new SqliteLog(conn, options);
  }

  readonly #conn: SqliteConnection;
  readonly #label: string;
  readonly #timeoutMs: number;
  /** Marks this log's notification rows, which its own watchers were woken for already. */
  readonly #origin = randomUUID();
  readonly #watchers = new Map<string, Set<Listener>>();
  readonly #poll: WakePoll;

  private constructor(conn: SqliteConnection, { label, timeoutMs }: SqliteLogOptions) {
    this.#conn = conn;
    this.#label = label;
    this.#timeoutMs = timeoutMs;
    this.#poll = new WakePoll(
      (sql, ...params) => this.#read(sql, ...params),
      this.#origin,
      (key, signal) => this.#wake(key, signal),
    );
  }

  /** Whether the cross-process poll runs (it does exactly while someone in this process watches). */
  get polling(): boolean {
    return this.#poll.running;
  }

  async append(key: string, frames: readonly LogFrame[], limits: LogLimits): Promise<void> {
    if (frames.length === 0) return;
    const runId = frames[0]!.runId;
    // A batch over the run's bounds by itself keeps only its newest frames, and none of the run's older ones.
    const start = keptFrom(frames, limits);
    const kept = frames.slice(start);
    await this.#write((all, now) => {
      const expired = all(`DELETE FROM ask_user_log_session WHERE key = ? AND expires < ? RETURNING key`, key, now);
      if (expired.length > 0) this.#dropSession(all, key);
      const created = all(
        `INSERT INTO ask_user_log_run (key, run, started, frames, bytes)
         SELECT ?1, ?2, IFNULL(MAX(started), 0) + 1, 0, 0 FROM ask_user_log_run WHERE key = ?1
         ON CONFLICT(key, run) DO NOTHING RETURNING started`,
        key,
        runId,
      );
      if (created.length > 0) this.#dropOldRuns(all, key, limits.maxRuns);
      else if (start > 0) {
        all(`DELETE FROM ask_user_log WHERE key = ? AND run = ?`, key, runId);
        all(`UPDATE ask_user_log_run SET frames = 0, bytes = 0 WHERE key = ? AND run = ?`, key, runId);
      }
      let count = 0;
      let bytes = 0;
      for (const frame of kept) {
        // A frame already there (an append retried after a timeout) is not counted twice.
        const inserted = all(
          `INSERT INTO ask_user_log (key, run, seq, event, data, bytes) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT(key, run, seq) DO NOTHING RETURNING bytes`,
          key,
          runId,
          frame.seq,
          frame.event,
          frame.data,
          frameBytes(frame),
        );
        if (inserted.length > 0) {
          count += 1;
          bytes += Number(inserted[0]!.bytes);
        }
      }
      const [totals] = all(
        `UPDATE ask_user_log_run SET frames = frames + ?, bytes = bytes + ? WHERE key = ? AND run = ? RETURNING frames, bytes`,
        count,
        bytes,
        key,
        runId,
      );
      if (totals) this.#trimRun(all, key, runId, { frames: Number(totals.frames), bytes: Number(totals.bytes) }, limits);
      all(
        `INSERT INTO ask_user_log_session (key, expires) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET expires = excluded.expires`,
        key,
        now + limits.windowMs,
      );
      all(`INSERT INTO ask_user_log_wake (key, origin, signal, at) VALUES (?, ?, NULL, ?)`, key, this.#origin, now);
    });
    this.#wake(key);
  }

  async read(key: string, after?: LogPosition): Promise<LogRead> {
    const rows = after
      ? await this.#read(READ_AFTER, key, Date.now(), after.runId, after.seq)
      : await this.#read(READ_ALL, key, Date.now());
    return framesAfter(runsOf(rows), after);
  }

  async last(key: string): Promise<LogFrame | undefined> {
    const [row] = await this.#read(READ_LAST, key, Date.now());
    return row && row.seq !== null ? frameOf(row) : undefined;
  }

  async watch(key: string, listener: Listener): Promise<() => void> {
    let set = this.#watchers.get(key);
    if (!set) this.#watchers.set(key, (set = new Set()));
    set.add(listener);
    const unwatch = () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(key) === set) this.#watchers.delete(key);
      if (this.#watchers.size === 0) this.#poll.stop();
    };
    try {
      await this.#poll.start();
    } catch (error) {
      unwatch();
      throw error;
    }
    return unwatch;
  }

  async signal(key: string, signal: string): Promise<void> {
    await this.#write((all, now) =>
      all(`INSERT INTO ask_user_log_wake (key, origin, signal, at) VALUES (?, ?, ?, ?)`, key, this.#origin, signal, now),
    );
    this.#wake(key, signal);
  }

  /** Deletes expired sessions and old notification rows; the backend's periodic sweep calls it. */
  async sweep(): Promise<void> {
    await this.#write((all, now) => {
      const expired = `SELECT key FROM ask_user_log_session WHERE expires < ?`;
      all(`DELETE FROM ask_user_log WHERE key IN (${expired})`, now);
      all(`DELETE FROM ask_user_log_run WHERE key IN (${expired})`, now);
      all(`DELETE FROM ask_user_log_session WHERE expires < ?`, now);
      all(`DELETE FROM ask_user_log_wake WHERE at < ?`, now - WAKE_KEEP_MS);
    });
  }

  /** Stops watching; the connection is the backend's, which closes it. */
  async close(): Promise<void> {
    this.#poll.stop();
    this.#watchers.clear();
  }

  #dropSession(all: Statement, key: string): void {
    all(`DELETE FROM ask_user_log WHERE key = ?`, key);
    all(`DELETE FROM ask_user_log_run WHERE key = ?`, key);
  }

  /** A new run pushes the oldest ones past `maxRuns` out, frames and all. */
  #dropOldRuns(all: Statement, key: string, maxRuns: number): void {
    const dropped = all(
      `DELETE FROM ask_user_log_run WHERE key = ?1 AND started <=
         (SELECT started FROM ask_user_log_run WHERE key = ?1 ORDER BY started DESC LIMIT 1 OFFSET ?2)
       RETURNING run`,
      key,
      maxRuns,
    );
    for (const row of dropped) all(`DELETE FROM ask_user_log WHERE key = ? AND run = ?`, key, String(row.run));
  }

  /**
   * Drops the run's oldest frames until both bounds hold. keptFrom would need the whole run in memory; the
   * totals in the run's row let a steady append read only the few frames it drops.
   */
  #trimRun(all: Statement, key: string, runId: string, totals: { frames: number; bytes: number }, limits: LogLimits): void {
    let { frames, bytes } = totals;
    const over = () => frames > limits.maxFrames || bytes > limits.maxBytes;
    let cut: number | undefined;
    while (over()) {
      const oldest = all(
        `SELECT seq, bytes FROM ask_user_log WHERE key = ? AND run = ? AND seq > ? ORDER BY seq LIMIT ?`,
        key,
        runId,
        cut ?? Number.MIN_SAFE_INTEGER,
        Math.max(TRIM_CHUNK, frames - limits.maxFrames),
      );
      if (oldest.length === 0) break;
      for (const row of oldest) {
        if (!over()) break;
        cut = Number(row.seq);
        frames -= 1;
        bytes -= Number(row.bytes);
      }
    }
    if (cut === undefined) return;
    all(`DELETE FROM ask_user_log WHERE key = ? AND run = ? AND seq <= ?`, key, runId, cut);
    all(`UPDATE ask_user_log_run SET frames = ?, bytes = ? WHERE key = ? AND run = ?`, frames, bytes, key, runId);
  }

  /** A read; it can never see a transaction of this process half done (those run in one step). */
  #read(sql: string, ...params: Array<string | number>): Promise<Row[]> {
    return this.#conn.all(sql, params, Date.now() + this.#timeoutMs);
  }

  /** `body` as one transaction (see SqliteConnection.transaction), with the lock waited for until the deadline. */
  #write<T>(body: (all: Statement, now: number) => T): Promise<T> {
    return this.#conn.transaction(Date.now() + this.#timeoutMs, (all) => body(all, Date.now()));
  }

  #wake(key: string, signal?: string): void {
    for (const listener of [...(this.#watchers.get(key) ?? [])]) {
      try {
        listener(signal);
      } catch {
        // A listener's failure is its own; the others still wake.
      }
    }
  }
}

type Statement = (sql: string, ...params: Array<string | number>) => Row[];
type AsyncStatement = (sql: string, ...params: Array<string | number>) => Promise<Row[]>;

/**
 * The cross-process half of watching. Started by the first watcher and stopped with the last, it runs one
 * timer (unref'd, so it never keeps the process alive) that checks `PRAGMA data_version` every
 * WATCH_POLL_MS and, when another connection committed, reads the notification rows after the last one it
 * saw and wakes their keys. Rows ids only grow (AUTOINCREMENT, writers take turns), so none is missed.
 */
class WakePoll {
  readonly #read: AsyncStatement;
  readonly #origin: string;
  readonly #wake: (key: string, signal?: string) => void;
  /** Bumped by every stop, so a tick or start from an earlier run lets go. */
  #generation = 0;
  #started: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #dataVersion: unknown;
  #lastId = 0;

  constructor(read: AsyncStatement, origin: string, wake: (key: string, signal?: string) => void) {
    this.#read = read;
    this.#origin = origin;
    this.#wake = wake;
  }

  get running(): boolean {
    return this.#started !== undefined;
  }

  /** Resolves once every notification committed from now on will be seen. */
  start(): Promise<void> {
    this.#started ??= this.#begin(this.#generation).catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    return this.#started;
  }

  stop(): void {
    this.#generation += 1;
    this.#started = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #begin(generation: number): Promise<void> {
    // The version first: a commit between the two reads is then looked at again, never skipped.
    const [version] = await this.#read('PRAGMA data_version');
    const [last] = await this.#read('SELECT IFNULL(MAX(id), 0) AS id FROM ask_user_log_wake');
    if (generation !== this.#generation) return;
    this.#dataVersion = version?.data_version;
    this.#lastId = Number(last?.id ?? 0);
    this.#schedule(generation);
  }

  #schedule(generation: number): void {
    this.#timer = setTimeout(() => void this.#tick(generation), WATCH_POLL_MS);
    this.#timer.unref();
  }

  async #tick(generation: number): Promise<void> {
    try {
      const [version] = await this.#read('PRAGMA data_version');
      if (generation !== this.#generation || version?.data_version === this.#dataVersion) return;
      const rows = await this.#read('SELECT id, key, origin, signal FROM ask_user_log_wake WHERE id > ? ORDER BY id', this.#lastId);
      if (generation !== this.#generation) return;
      // Taken only once the rows are read: a failed read is tried again at the next tick.
      this.#dataVersion = version?.data_version;
      for (const row of rows) {
        this.#lastId = Number(row.id);
        if (row.origin !== this.#origin) this.#wake(String(row.key), row.signal === null ? undefined : String(row.signal));
      }
    } catch {
      // A locked or busy file: the rows are still there at the next tick.
    } finally {
      if (generation === this.#generation) this.#schedule(generation);
    }
  }
}

function frameOf(row: Row): LogFrame {
  return { runId: String(row.run), seq: Number(row.seq), event: String(row.event), data: String(row.data) };
}

/** Rows ordered by run and seq, grouped back into runs; a run without frames has one row of NULLs. */
function runsOf(rows: readonly Row[]): Array<{ runId: string; frames: LogFrame[] }> {
  const runs: Array<{ runId: string; frames: LogFrame[] }> = [];
  for (const row of rows) {
    const runId = String(row.run);
    if (runs.at(-1)?.runId !== runId) runs.push({ runId, frames: [] });
    if (row.seq !== null) runs.at(-1)!.frames.push(frameOf(row));
  }
  return runs;
}
