/**
 * The PostgreSQL store's tables, in a schema of their own named after the store's namespace, and how a
 * database gets them: on open, one transaction under an advisory lock creates or migrates them and writes
 * the schema's version row, so instances that start together migrate once and never see half a schema.
 *
 * Version 1:
 * - `kv(key, value, version, purge_at, expires_at)`: Keyv's key and envelope, plus the versioned state
 *   row's version and purgeAt (backend.ts, stateHead) and the physical expiry on the server's clock, so a
 *   compare-and-swap is one conditional statement with no read first;
 * - `log_session`, `log_run`, `log_frame`: the event log (postgres-log.ts), and `log_append`, the function
 *   that appends, trims and notifies in one call;
 * - `meta(name, value)`: the row `schema_version`.
 *
 * Keys are `COLLATE "C"`: byte order, so a key prefix is one range of the primary key (the paged sweeps'
 * scans) whatever the database's collation.
 */
import type { Client } from 'pg';
import { StoreError } from './store-errors.js';

export const SCHEMA_VERSION = 1;

/**
 * Epoch ms on the server's clock, as SQL: now, not at the transaction's start. Expiry and write deadlines
 * are judged on it, so every instance judges them alike whatever its own clock.
 */
export const SERVER_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)';

/** First key of the kit's advisory locks ('ASKU'); the second is a hash of the schema name. */
const LOCK_CLASS = 0x41534b55;
/** PostgreSQL keeps identifiers to 63 bytes; namespaces are ASCII, so characters are bytes. */
const MAX_IDENTIFIER = 63;

/** A namespace as a quoted identifier (namespaces are `[A-Za-z0-9_.-]`, so no quote can occur in one). */
export function schemaOf(namespace: string): { name: string; quoted: string } {
  const name = namespace.slice(0, MAX_IDENTIFIER);
  return { name, quoted: `"${name}"` };
}

/** The statements that take an empty schema `s` to version 1. */
const version1 = (s: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${s}.kv (
     key text COLLATE "C" PRIMARY KEY,
     value text NOT NULL,
     version text,
     purge_at bigint,
     expires_at bigint)`,
  `CREATE INDEX IF NOT EXISTS kv_expires_at ON ${s}.kv (expires_at) WHERE expires_at IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS ${s}.log_session (key text COLLATE "C" PRIMARY KEY, expires_at bigint NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS log_session_expires_at ON ${s}.log_session (expires_at)`,
  `CREATE TABLE IF NOT EXISTS ${s}.log_run (
     key text COLLATE "C" NOT NULL,
     run text COLLATE "C" NOT NULL,
     started integer NOT NULL,
     frames integer NOT NULL,
     bytes bigint NOT NULL,
     last_seq bigint,
     PRIMARY KEY (key, run),
     UNIQUE (key, started))`,
  `CREATE TABLE IF NOT EXISTS ${s}.log_frame (
     key text COLLATE "C" NOT NULL,
     run text COLLATE "C" NOT NULL,
     seq bigint NOT NULL,
     event text NOT NULL,
     data text NOT NULL,
     bytes integer NOT NULL,
     PRIMARY KEY (key, run, seq))`,
  logAppendFunction(s),
];

/**
 * One append as one call, like the Redis backend's script, in three statements when nothing needs
 * trimming. The session's row is written first, which locks it to the end of the transaction: appends to
 * one session take turns while other sessions go on. A session past its window (or new) starts afresh.
 * Frames at or before the run's last seq are skipped (an append retried after a timeout adds nothing
 * twice) and the run's totals are counted up in the same statement; a new run pushes the oldest past
 * maxRuns out. The oldest frames go until both bounds hold, read only when they must; the notification
 * goes out at commit.
 */
function logAppendFunction(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.log_append(
  p_key text, p_run text, p_seqs bigint[], p_events text[], p_data text[], p_bytes integer[], p_replace boolean,
  p_window bigint, p_max_frames integer, p_max_bytes bigint, p_max_runs integer, p_channel text)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_now bigint := floor(${SERVER_NOW_MS});
  v_frames integer;
  v_bytes bigint;
  v_cut bigint;
  v_row record;
BEGIN
  UPDATE ${s}.log_session SET expires_at = v_now + p_window WHERE key = p_key AND expires_at >= v_now;
  IF NOT FOUND THEN
    -- New, or past its window. ON CONFLICT locks the row even where it does not update it: a session
    -- another append renewed meanwhile is live, and is renewed once more below instead of emptied.
    INSERT INTO ${s}.log_session AS ss (key, expires_at) VALUES (p_key, v_now + p_window)
      ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE ss.expires_at < v_now;
    IF FOUND THEN
      DELETE FROM ${s}.log_frame WHERE key = p_key;
      DELETE FROM ${s}.log_run WHERE key = p_key;
    ELSE
      UPDATE ${s}.log_session SET expires_at = v_now + p_window WHERE key = p_key;
    END IF;
  END IF;

  IF p_replace THEN
    DELETE FROM ${s}.log_frame WHERE key = p_key AND run = p_run;
    UPDATE ${s}.log_run SET frames = 0, bytes = 0, last_seq = NULL WHERE key = p_key AND run = p_run;
  END IF;

  WITH added AS (
    INSERT INTO ${s}.log_frame (key, run, seq, event, data, bytes)
    SELECT p_key, p_run, f.seq, f.event, f.data, f.bytes
    FROM unnest(p_seqs, p_events, p_data, p_bytes) AS f(seq, event, data, bytes)
    WHERE f.seq > coalesce((SELECT last_seq FROM ${s}.log_run WHERE key = p_key AND run = p_run), f.seq - 1)
    ON CONFLICT DO NOTHING
    RETURNING seq, bytes)
  UPDATE ${s}.log_run r
    SET frames = r.frames + a.count, bytes = r.bytes + a.bytes, last_seq = greatest(r.last_seq, a.last)
    FROM (SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes, max(seq) AS last FROM added) a
    WHERE r.key = p_key AND r.run = p_run
    RETURNING r.frames, r.bytes INTO v_frames, v_bytes;
  IF NOT FOUND THEN
    -- A new run: its frames are the ones just added.
    INSERT INTO ${s}.log_run (key, run, started, frames, bytes, last_seq)
      SELECT p_key, p_run, (SELECT coalesce(max(started), 0) + 1 FROM ${s}.log_run WHERE key = p_key), count(*), coalesce(sum(bytes), 0), max(seq)
      FROM ${s}.log_frame WHERE key = p_key AND run = p_run
      RETURNING frames, bytes INTO v_frames, v_bytes;
    FOR v_row IN
      DELETE FROM ${s}.log_run WHERE key = p_key AND started <=
        (SELECT started FROM ${s}.log_run WHERE key = p_key ORDER BY started DESC OFFSET p_max_runs LIMIT 1)
      RETURNING run
    LOOP
      DELETE FROM ${s}.log_frame WHERE key = p_key AND run = v_row.run;
    END LOOP;
  END IF;

  IF v_frames > p_max_frames OR v_bytes > p_max_bytes THEN
    FOR v_row IN SELECT seq, bytes FROM ${s}.log_frame WHERE key = p_key AND run = p_run ORDER BY seq LOOP
      EXIT WHEN v_frames <= p_max_frames AND v_bytes <= p_max_bytes;
      v_cut := v_row.seq;
      v_frames := v_frames - 1;
      v_bytes := v_bytes - v_row.bytes;
    END LOOP;
    DELETE FROM ${s}.log_frame WHERE key = p_key AND run = p_run AND seq <= v_cut;
    UPDATE ${s}.log_run SET frames = v_frames, bytes = v_bytes WHERE key = p_key AND run = p_run;
  END IF;
  PERFORM pg_notify(p_channel, 'a');
END
$fn$`;
}

/** Migrations by the version they lead to; each runs inside the opening transaction. */
const MIGRATIONS: ReadonlyArray<(schema: string) => string[]> = [version1];

/** The version a schema's row says, or undefined when the schema or its meta table is not there yet. */
export async function schemaVersion(client: Pick<Client, 'query'>, quoted: string): Promise<number | undefined> {
  try {
    const { rows } = await client.query<{ value: string }>(`SELECT value FROM ${quoted}.meta WHERE name = 'schema_version'`);
    return rows[0] === undefined ? undefined : Number(rows[0].value);
  } catch (error) {
    // 3F000 invalid_schema_name, 42P01 undefined_table: a database the kit has not opened yet.
    const code = (error as { code?: unknown } | null)?.code;
    if (code === '3F000' || code === '42P01') return undefined;
    throw error;
  }
}

/**
 * Brings the namespace's schema to SCHEMA_VERSION. Cheap when it is there already (one read); otherwise one
 * transaction under the schema's advisory lock, which a concurrent opener waits for and then finds done.
 */
export async function migrate(client: Client, namespace: string): Promise<void> {
  const { name, quoted } = schemaOf(namespace);
  const found = await schemaVersion(client, quoted);
  if (found === SCHEMA_VERSION) return;
  if (found !== undefined && found > SCHEMA_VERSION) throw newerSchema(name, found);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, name]);
    // Created only when missing: a host may give the kit a schema made for it, without CREATE on the database.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.meta (name text PRIMARY KEY, value text NOT NULL)`);
    const current = (await schemaVersion(client, quoted)) ?? 0;
    if (current > SCHEMA_VERSION) throw newerSchema(name, current);
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version - 1]!(quoted)) await client.query(statement);
    }
    await client.query(
      `INSERT INTO ${quoted}.meta (name, value) VALUES ('schema_version', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [String(SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function newerSchema(name: string, found: number): StoreError {
  return new StoreError(
    'store_unsupported',
    `the PostgreSQL schema "${name}" is at version ${found}, newer than this ask-user-kit knows (${SCHEMA_VERSION}); upgrade ask-user-kit`,
  );
}
