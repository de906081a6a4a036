/**
 * The PostgreSQL backend's event log (event-log.ts), in the store's schema (postgres-schema.ts):
 *
 * - `log_frame(key, run, seq, event, data, bytes)`: the kept frames, as given;
 * - `log_run(key, run, started, frames, bytes, last_seq)`: a session's runs in the order they started,
 *   with what each keeps, so a steady append trims its run without reading it;
 * - `log_session(key, expires_at)`: when the session's frames end, on the server's clock.
 *
 * An append is one call of the schema's `log_append` function: one round trip, one transaction that holds
 * the session's row, and a NOTIFY sent at its commit. Reads are one statement each.
 *
 * Watching LISTENs on one channel per watched session, on one connection per backend made on the first
 * watch (postgres-listener.ts); a channel is a hash of the session's key, since channel names are
 * identifiers of at most 63 bytes. A signal is a NOTIFY on the same channel with its text (PostgreSQL
 * refuses payloads of 8,000 bytes or more; the kit's signals are a word).
 */
import { createHash } from 'node:crypto';
import type { ClientConfig } from 'pg';
import {
  framesAfter,
  frameBytes,
  keptFrom,
  type LogBackend,
  type LogFrame,
  type LogLimits,
  type LogPosition,
  type LogRead,
} from './event-log.js';
import { statement, type PostgresConnections } from './postgres-connections.js';
import { PostgresListener } from './postgres-listener.js';
import { SERVER_NOW_MS } from './postgres-schema.js';

/** What an append notifies; a signal notifies SIGNAL_PREFIX and its text. */
const APPEND_PAYLOAD = 'a';
const SIGNAL_PREFIX = 's';
/** Expired sessions deleted per statement of a sweep. */
const SWEEP_BATCH = 200;

interface FrameRow {
  run: string;
  /** int8 comes back as text. */
  seq: string | null;
  event: string | null;
  data: string | null;
}

function statementsFor(s: string) {
  // A session's runs (each at least once, frames or not) with their kept frames, in order; a session past
  // its window has none, swept or not.
  const frames = `
    SELECT r.run AS run, f.seq AS seq, f.event AS event, f.data AS data
    FROM ${s}.log_session ss
    JOIN ${s}.log_run r ON r.key = ss.key
    LEFT JOIN ${s}.log_frame f ON f.key = r.key AND f.run = r.run`;
  const live = `ss.key = $1 AND ss.expires_at >= ${SERVER_NOW_MS}`;
  return {
    append: statement(`SELECT ${s}.log_append($1, $2, $3::bigint[], $4::text[], $5::text[], $6::integer[], $7, $8, $9, $10, $11, $12)`),
    readAll: statement(`${frames} WHERE ${live} ORDER BY r.started, f.seq`),
    // After a position: its run and the later ones. Of its run, the frames from the last one at or before
    // the position (or all, if none is): framesAfter then sees a first frame that tells it the same as the
    // run's real first frame would, and the read stays one index range however long the run. An unknown
    // run makes the started bound NULL, so no row comes back.
    readAfter: statement(`${frames}
      AND f.seq >= CASE WHEN r.run = $2::text
        THEN coalesce((SELECT max(seq) FROM ${s}.log_frame WHERE key = $1 AND run = $2::text AND seq <= $3::bigint), $3::bigint)
        ELSE f.seq END
      WHERE ${live} AND r.started >= (SELECT started FROM ${s}.log_run WHERE key = $1 AND run = $2::text)
      ORDER BY r.started, f.seq`),
    // The newest run and its last frame (NULLs when it kept none).
    readLast: statement(`${frames} AND f.seq = (SELECT max(seq) FROM ${s}.log_frame WHERE key = r.key AND run = r.run)
      WHERE ${live} ORDER BY r.started DESC LIMIT 1`),
    notify: statement('SELECT pg_notify($1, $2)'),
    // Expired sessions a batch at a time, with their runs and frames, in one statement.
    sweep: statement(`
      WITH gone AS (
        DELETE FROM ${s}.log_session WHERE key IN (
          SELECT key FROM ${s}.log_session WHERE expires_at < ${SERVER_NOW_MS} LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING key),
      frames AS (DELETE FROM ${s}.log_frame WHERE key IN (SELECT key FROM gone)),
      runs AS (DELETE FROM ${s}.log_run WHERE key IN (SELECT key FROM gone))
      SELECT count(*)::int AS swept FROM gone`),
  };
}

export interface PostgresLogOptions {
  /** For error messages, without credentials. */
  label: string;
  /** Connecting and closing the listener connection take at most this. */
  timeoutMs: number;
  /** Settings of the listener connection. */
  listenerConfig: ClientConfig;
}

export class PostgresLog implements LogBackend {
  readonly #connections: PostgresConnections;
  readonly #sql: ReturnType<typeof statementsFor>;
  readonly #listener: PostgresListener;

  /** `schema` is the quoted schema name the tables are in. */
  constructor(connections: PostgresConnections, schema: string, { label, timeoutMs, listenerConfig }: PostgresLogOptions) {
    this.#connections = connections;
    this.#sql = statementsFor(schema);
    this.#listener = new PostgresListener({ label, timeoutMs, config: listenerConfig });
  }

  async append(key: string, frames: readonly LogFrame[], limits: LogLimits): Promise<void> {
    if (frames.length === 0) return;
    // A batch over the run's bounds by itself keeps only its newest frames, and none of the run's older ones.
    const start = keptFrom(frames, limits);
    const kept = frames.slice(start);
    await this.#connections.rows(this.#sql.append, [
      key,
      frames[0]!.runId,
      kept.map((f) => f.seq),
      kept.map((f) => f.event),
      kept.map((f) => f.data),
      kept.map(frameBytes),
      start > 0,
      limits.windowMs,
      limits.maxFrames,
      limits.maxBytes,
      limits.maxRuns,
      channelOf(key),
    ]);
  }

  async read(key: string, after?: LogPosition): Promise<LogRead> {
    const rows = after
      ? await this.#connections.rows<FrameRow>(this.#sql.readAfter, [key, after.runId, after.seq])
      : await this.#connections.rows<FrameRow>(this.#sql.readAll, [key]);
    return framesAfter(runsOf(rows), after);
  }

  async last(key: string): Promise<LogFrame | undefined> {
    const [row] = await this.#connections.rows<FrameRow>(this.#sql.readLast, [key]);
    return row && row.seq !== null ? frameOf(row) : undefined;
  }

  watch(key: string, listener: (signal?: string) => void): Promise<() => void> {
    return this.#listener.listen(channelOf(key), (payload) =>
      listener(payload?.startsWith(SIGNAL_PREFIX) ? payload.slice(SIGNAL_PREFIX.length) : undefined),
    );
  }

  async signal(key: string, signal: string): Promise<void> {
    await this.#connections.rows(this.#sql.notify, [channelOf(key), `${SIGNAL_PREFIX}${signal}`]);
  }

  /** Deletes expired sessions with their runs and frames; the backend's periodic sweep calls it. */
  async sweep(): Promise<void> {
    for (let batch = 0; batch < 20; batch++) {
      const [row] = await this.#connections.rows<{ swept: number }>(this.#sql.sweep, []);
      if ((row?.swept ?? 0) < SWEEP_BATCH) return;
    }
  }

  /** Stops watching; the connections are the backend's, which closes them. */
  close(): Promise<void> {
    return this.#listener.close();
  }
}

/** The NOTIFY channel of a session's key: an identifier of PostgreSQL's at most 63 bytes, whatever the key. */
export function channelOf(key: string): string {
  return `ask_user_${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

function frameOf(row: FrameRow): LogFrame {
  return { runId: row.run, seq: Number(row.seq), event: row.event ?? '', data: row.data ?? '' };
}

/** Rows ordered by run and seq, grouped back into runs; a run without frames has one row of NULLs. */
function runsOf(rows: readonly FrameRow[]): Array<{ runId: string; frames: LogFrame[] }> {
  const runs: Array<{ runId: string; frames: LogFrame[] }> = [];
  for (const row of rows) {
    if (runs.at(-1)?.runId !== row.run) runs.push({ runId: row.run, frames: [] });
    if (row.seq !== null) runs.at(-1)!.frames.push(frameOf(row));
  }
  return runs;
}
