/**
 * PostgreSQL backend (13 or later) through `pg`: rows in the table `kv` of a schema named after the
 * store's namespace (postgres-schema.ts, created or migrated on open), the event log beside it
 * (postgres-log.ts, followed across instances with LISTEN/NOTIFY).
 *
 * Every swap is one statement with its expectation in the WHERE clause, and every row carries what the
 * expectations need in columns of its own (the versioned state row's version and purgeAt, the physical
 * expiry), so a compare-and-set with a known version goes out without a read, as on the other backends.
 * A row past its physical expiry reads as absent everywhere and is deleted by a periodic sweep.
 *
 * The write deadline is checked by the server on its own clock, translated from ours by an offset measured
 * at open and again at every sweep (accurate to half a round trip), so a statement that sat behind a paused
 * server changes nothing when it finally runs, as with Redis.
 *
 * Statements go out on a few pipelined connections (postgres-connections.ts). A server that stops
 * answering costs at most the store's budget: connecting and each statement are bounded by `timeoutMs` on
 * the client (a connection whose reply timed out is dropped, not reused), and by `statement_timeout` on the
 * server. A refused or dropped connection fails at once; the next statement connects anew, so service comes
 * back with the server.
 */
import type { ClientConfig, QueryResultRow } from 'pg';
import { stateHead, type Backend, type ScanPage, type SwapRequest } from './backend.js';
import { DEFAULT_POSTGRES_POOL_SIZE } from './keyed-store.js';
import { PostgresConnections, statement, type Statement } from './postgres-connections.js';
import { PostgresLog } from './postgres-log.js';
import { migrate, schemaOf, SERVER_NOW_MS } from './postgres-schema.js';
import { StoreError, withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

/** Oldest expired rows deleted per statement of a sweep, so a sweep never holds many row locks at once. */
const SWEEP_BATCH = 500;
/** The oldest server the statements are written for (`server_version_num`). */
const MIN_SERVER_VERSION = 130_000;

export interface PostgresBackendOptions {
  /** The store's per-operation budget: connecting, and each statement on the client and on the server. */
  timeoutMs: number;
  /** Names the schema the tables live in. @default 'ask_user' */
  namespace?: string;
  /** Connections opened at most, besides the event log's LISTEN connection. @default 4 */
  poolSize?: number;
  /** How often expired rows are deleted and the server's clock offset measured again. @default 60000 */
  sweepEveryMs?: number;
}

/** The server's clock, for the offset to ours. */
const CLOCK = statement(`SELECT ${SERVER_NOW_MS}::float8 AS ms`);
const LIVE = `(expires_at IS NULL OR expires_at > ${SERVER_NOW_MS})`;

/** The statements of one schema. */
function statementsFor(s: string) {
  const columns = `value = $2, version = $3, purge_at = $4::bigint, expires_at = floor(${SERVER_NOW_MS})::bigint + $5::bigint`;
  const inTime = `${SERVER_NOW_MS} <= $6::float8`;
  const upsert = (when: string) => `
    INSERT INTO ${s}.kv AS t (key, value, version, purge_at, expires_at)
    SELECT $1, $2, $3, $4::bigint, floor(${SERVER_NOW_MS})::bigint + $5::bigint WHERE ${inTime}
    ON CONFLICT (key) DO UPDATE SET
      value = excluded.value, version = excluded.version, purge_at = excluded.purge_at, expires_at = excluded.expires_at
    WHERE ${when}${inTime}`;
  const versionMatch = (v: number) => `version = $${v} AND (purge_at IS NULL OR purge_at > $${v + 1}::float8)`;
  // Whether a statement wrote, and whether the server's clock was past the deadline once it had run: a
  // statement that wrote nothing then tells a failed expectation from a late one by itself.
  const counted = (write: string, deadline: number) =>
    statement(`WITH w AS (${write} RETURNING 1) SELECT count(*)::int AS written, ${SERVER_NOW_MS} > $${deadline}::float8 AS late FROM w`);
  return {
    set: counted(upsert(''), 6),
    insert: counted(upsert(`t.expires_at <= ${SERVER_NOW_MS} AND `), 6),
    replaceRaw: counted(`UPDATE ${s}.kv SET ${columns} WHERE key = $1 AND value = $7 AND ${LIVE} AND ${inTime}`, 6),
    replaceVersion: counted(`UPDATE ${s}.kv SET ${columns} WHERE key = $1 AND ${versionMatch(7)} AND ${LIVE} AND ${inTime}`, 6),
    delete: counted(`DELETE FROM ${s}.kv WHERE key = $1 AND ${SERVER_NOW_MS} <= $2::float8`, 2),
    deleteRaw: counted(`DELETE FROM ${s}.kv WHERE key = $1 AND value = $3 AND ${LIVE} AND ${SERVER_NOW_MS} <= $2::float8`, 2),
    deleteVersion: counted(`DELETE FROM ${s}.kv WHERE key = $1 AND ${versionMatch(3)} AND ${LIVE} AND ${SERVER_NOW_MS} <= $2::float8`, 2),
    read: statement(`SELECT value FROM ${s}.kv WHERE key = $1 AND ${LIVE}`),
    readMany: statement(`SELECT key, value FROM ${s}.kv WHERE key = ANY($1::text[]) AND ${LIVE}`),
    // The primary key's byte order makes a prefix one index range; $1 is the prefix or the cursor.
    scanFrom: statement(`SELECT key, value FROM ${s}.kv WHERE key >= $1 AND key < $2 AND ${LIVE} ORDER BY key LIMIT $3`),
    scanAfter: statement(`SELECT key, value FROM ${s}.kv WHERE key > $1 AND key < $2 AND ${LIVE} ORDER BY key LIMIT $3`),
    scanFromOpen: statement(`SELECT key, value FROM ${s}.kv WHERE key >= $1 AND ${LIVE} ORDER BY key LIMIT $2`),
    scanAfterOpen: statement(`SELECT key, value FROM ${s}.kv WHERE key > $1 AND ${LIVE} ORDER BY key LIMIT $2`),
    sweep: statement(`
      WITH gone AS (
        DELETE FROM ${s}.kv WHERE key IN (
          SELECT key FROM ${s}.kv WHERE expires_at < ${SERVER_NOW_MS} ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS swept FROM gone`),
  };
}

/** pg's settings for one connection of the store: every wait bounded by the budget, dead peers noticed. */
export function connectionConfig(url: string, timeoutMs: number): ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    // Client side: a reply that never comes (a paused server) fails the query and drops its connection.
    query_timeout: timeoutMs,
    // Server side: a statement stuck on a lock is cancelled rather than applied after the caller gave up.
    statement_timeout: timeoutMs,
    // A migration's transaction left open by a frozen process releases its advisory lock.
    idle_in_transaction_session_timeout: Math.max(10_000, 4 * timeoutMs),
    keepAlive: true,
    application_name: 'ask-user-kit',
  };
}

export class PostgresBackend implements Backend {
  /** Connects, checks the server, migrates the schema; StoreUnavailableError when the server cannot be reached within `timeoutMs`. */
  static async open(target: { url: string; label: string }, options: PostgresBackendOptions): Promise<PostgresBackend> {
    const { timeoutMs, namespace = 'ask_user', poolSize = DEFAULT_POSTGRES_POOL_SIZE, sweepEveryMs = 60_000 } = options;
    const config = connectionConfig(target.url, timeoutMs);
    const connections = new PostgresConnections(config, { label: target.label, size: poolSize, timeoutMs });
    const backend = new PostgresBackend(connections, target, { namespace, sweepEveryMs, timeoutMs, config });
    try {
      await withinBudget(`connecting to ${target.label}`, timeoutMs, () => backend.#prepare());
    } catch (error) {
      await backend.close();
      throw error;
    }
    backend.#startSweeps();
    return backend;
  }

  readonly kind = 'postgres';
  readonly label: string;
  readonly log: PostgresLog;
  readonly #connections: PostgresConnections;
  readonly #namespace: string;
  readonly #sweepEveryMs: number;
  readonly #sql: ReturnType<typeof statementsFor>;
  /** Server clock minus ours, in ms; measured on open, before any write. */
  #offsetMs = 0;
  #sweep: NodeJS.Timeout | undefined;
  #closed: Promise<void> | undefined;

  private constructor(
    connections: PostgresConnections,
    target: { url: string; label: string },
    { namespace, sweepEveryMs, timeoutMs, config }: Required<Omit<PostgresBackendOptions, 'poolSize'>> & { config: ClientConfig },
  ) {
    this.#connections = connections;
    this.label = target.label;
    this.#namespace = namespace;
    this.#sweepEveryMs = sweepEveryMs;
    const { quoted } = schemaOf(namespace);
    this.#sql = statementsFor(quoted);
    this.log = new PostgresLog(connections, quoted, { label: target.label, timeoutMs, listenerConfig: config });
  }

  async read(key: string): Promise<string | undefined> {
    const [row] = await this.#query<{ value: string }>(this.#sql.read, [key]);
    return row?.value;
  }

  async swap({ key, expect, next, ttlMs, deadline }: SwapRequest): Promise<boolean> {
    const serverDeadline = deadline + this.#offsetMs;
    if (next === null) {
      if (expect.kind === 'absent') return true; // Deleting where nothing may be is a no-op.
      if (expect.kind === 'any') {
        // Nothing to delete counts as deleted, unless the statement ran past the deadline.
        await this.#write(this.#sql.delete, [key, serverDeadline]);
        return true;
      }
      return expect.kind === 'raw'
        ? this.#write(this.#sql.deleteRaw, [key, serverDeadline, expect.raw])
        : this.#write(this.#sql.deleteVersion, [key, serverDeadline, expect.version, expect.liveAt]);
    }
    const head = stateHead(next);
    const row = [
      key,
      next,
      head?.version ?? null,
      head?.purgeAt ?? null,
      ttlMs === undefined ? null : Math.max(1, Math.ceil(ttlMs)),
      serverDeadline,
    ];
    if (expect.kind === 'any') return this.#write(this.#sql.set, row);
    if (expect.kind === 'absent') return this.#write(this.#sql.insert, row);
    if (expect.kind === 'raw') return this.#write(this.#sql.replaceRaw, [...row, expect.raw]);
    return this.#write(this.#sql.replaceVersion, [...row, expect.version, expect.liveAt]);
  }

  async readMany(keys: readonly string[]): Promise<Array<string | undefined>> {
    if (keys.length === 0) return [];
    const rows = await this.#query<{ key: string; value: string }>(this.#sql.readMany, [keys]);
    const found = new Map(rows.map((r) => [r.key, r.value]));
    return keys.map((k) => found.get(k));
  }

  async scan(prefix: string, cursor: string | undefined, limit: number): Promise<ScanPage> {
    const end = prefixEnd(prefix);
    const from = cursor ?? prefix;
    const rows =
      end === undefined
        ? await this.#query<{ key: string; value: string }>(cursor !== undefined ? this.#sql.scanAfterOpen : this.#sql.scanFromOpen, [
            from,
            limit,
          ])
        : await this.#query<{ key: string; value: string }>(cursor !== undefined ? this.#sql.scanAfter : this.#sql.scanFrom, [
            from,
            end,
            limit,
          ]);
    const entries = rows.filter((r) => r.key.startsWith(prefix)).map((r): [string, string] => [r.key, r.value]);
    return rows.length < limit ? { entries } : { entries, cursor: rows.at(-1)!.key };
  }

  /** Also closes the log. Connections of a server that does not answer the goodbye within the budget are dropped. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearInterval(this.#sweep);
      await this.log.close();
      await this.#connections.close();
    })();
    return this.#closed;
  }

  /** Checks the server's version, measures its clock, and migrates the schema, on a connection of its own. */
  #prepare(): Promise<void> {
    return this.#connections.alone(async (client) => {
      const { rows } = await client.query<{ version: number }>(`SELECT current_setting('server_version_num')::int AS version`);
      const version = rows[0]?.version ?? 0;
      if (version < MIN_SERVER_VERSION) {
        throw new StoreError(
          'store_unsupported',
          `${this.label} runs PostgreSQL ${Math.floor(version / 10_000)}; the postgres store needs 13 or later`,
        );
      }
      await this.#calibrate((sql) => client.query<{ ms: number }>(sql.text).then((r) => r.rows));
      await migrate(client, this.#namespace);
    });
  }

  /** The offset is off by at most half the round trip it was measured with, so keep the fastest of a few. */
  async #calibrate(run: (sql: Statement) => Promise<Array<{ ms: number }>>): Promise<void> {
    let best: { rtt: number; offset: number } | undefined;
    for (let sample = 0; sample < 3; sample++) {
      const before = Date.now();
      const [row] = await run(CLOCK);
      const after = Date.now();
      const offset = Number(row!.ms) - (before + after) / 2;
      if (best === undefined || after - before < best.rtt) best = { rtt: after - before, offset };
    }
    this.#offsetMs = best!.offset;
  }

  #startSweeps(): void {
    this.#sweep = setInterval(() => void this.#maintain(), this.#sweepEveryMs);
    this.#sweep.unref();
  }

  /** Deletes expired rows and log sessions a batch at a time, and measures the clock again; failures wait for the next turn. */
  async #maintain(): Promise<void> {
    try {
      for (let batch = 0; batch < 20; batch++) {
        const [row] = await this.#query<{ swept: number }>(this.#sql.sweep, []);
        if ((row?.swept ?? 0) < SWEEP_BATCH) break;
      }
      await this.log.sweep();
      await this.#calibrate((sql) => this.#query(sql, []));
    } catch {
      // The server is away; the rows are still there next time.
    }
  }

  #query<R extends QueryResultRow>(sql: Statement, values: unknown[]): Promise<R[]> {
    return this.#connections.rows<R>(sql, values);
  }

  /** Runs a counted write: true when it wrote; a refusal past the deadline is StoreUnavailableError. */
  async #write(sql: Statement, values: unknown[]): Promise<boolean> {
    const [row] = await this.#query<{ written: number; late: boolean }>(sql, values);
    if (row!.written > 0) return true;
    if (row!.late) throw new StoreUnavailableError(`${this.label} ran the write after its deadline; nothing was written`);
    return false;
  }
}

export function openPostgresBackend(target: { url: string; label: string }, options: PostgresBackendOptions): Promise<Backend> {
  return PostgresBackend.open(target, options);
}

/**
 * The least string greater than every string that starts with `prefix`, in code point (= UTF-8 byte)
 * order: the prefix with its last code point raised by one. Undefined when every code point is the highest.
 */
export function prefixEnd(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      // Surrogates are not characters: past them the next one is U+E000.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}
