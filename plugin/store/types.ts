/**
 * The pending store's typed surface. Everything in the plugin and the loop talks to this interface; each
 * backend (memory, SQLite, Redis, PostgreSQL) implements it on Keyv plus the backend's own atomic operation, and runs
 * the one contract suite in tests/plugin/store/.
 */
import type { Answer, AskUserForm, InteractionStatus, ResolvedStatus } from '../contract/schema.js';
import type { EventLog, LogLimits } from './event-log.js';

export interface Resolution {
  status: ResolvedStatus;
  /** Epoch milliseconds. */
  at: number;
  /** For `answered` the user's answer; for the other statuses the cancel answer. */
  answer: Answer;
  /**
   * The continue that claimed it (contract §11): its `Idempotency-Key`, a digest of its body, and the log
   * position its stream began after, so a retry with the same key and body gets the same stream replayed.
   */
  retry?: { key: string; digest: string; after?: { runId: string; seq: number } };
}

export interface InteractionRecord {
  requestId: string;
  toolCallId: string;
  sessionId: string;
  form: AskUserForm;
  /** Epoch milliseconds. */
  createdAt: number;
  expiresAt: number;
  status: InteractionStatus;
  /** Written by the claim in the same atomic step as the status, so a crash after it can be rolled forward. */
  resolution?: Resolution;
  /** Set once the ToolResult is in the run's history; a resolved record without it still needs rolling forward. */
  toolResultWritten?: boolean;
}

/**
 * The expiry rule, said once for the store, the routes and the coordinator: a question is past its
 * lifetime once closed as expired, or while still pending at or after `expiresAt` (nobody collected it yet).
 */
export function isPastExpiry(record: Pick<InteractionRecord, 'status' | 'expiresAt'>, now: number): boolean {
  return record.status === 'expired' || (record.status === 'pending' && now >= record.expiresAt);
}

export type ClaimOutcome =
  | { ok: true; record: InteractionRecord }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'already_resolved'; record: InteractionRecord }
  | { ok: false; reason: 'expired'; record: InteractionRecord };

export interface ClaimOptions {
  /** Claim even past `expiresAt` (used to close an interaction as `expired` or `superseded`). */
  allowExpired?: boolean;
}

export interface StateEntry<T> {
  value: T;
  /** Opaque; changes on every write. Pass it back as `ifVersion` for compare-and-set. */
  version: string;
}

export interface StatePage<T> {
  entries: Array<StateEntry<T> & { key: string }>;
  cursor?: string;
}

/** Where a state key lives. */
export interface StateKeyOptions {
  /**
   * The session the key belongs to. A store that shards by slot (Redis Cluster) keeps it in that session's
   * slot, beside its question and log; other stores ignore it. Give the same one on every call for a key.
   */
  sessionId?: string;
}

export interface PutStateOptions extends StateKeyOptions {
  /** `null`: write only if absent. A version: write only if unchanged since read. Omitted: unconditional. */
  ifVersion?: string | null;
  ttlMs?: number;
}

export interface PendingStore {
  readonly kind: 'memory' | 'sqlite' | 'redis' | 'redis-cluster' | 'postgres' | (string & {});
  /** Store a new pending interaction and make it the session's current one. */
  create(record: InteractionRecord): Promise<void>;
  /**
   * The record, or undefined when unknown (or past retention). A `pending` record past `expiresAt` is
   * returned with `status: 'expired'` even if nobody closed it yet: the store never trusts an uncollected entry.
   */
  get(requestId: string): Promise<InteractionRecord | undefined>;
  /** The session's current interaction if it is still pending or expired-but-retained; otherwise undefined. */
  currentOf(sessionId: string): Promise<InteractionRecord | undefined>;
  /** Atomically move `pending → resolution.status`; exactly one concurrent caller (any process) gets `ok: true`. */
  claim(requestId: string, resolution: Resolution, options?: ClaimOptions): Promise<ClaimOutcome>;
  /** Record that the ToolResult for this interaction is in the run's history. Idempotent. */
  markToolResultWritten(requestId: string): Promise<void>;

  /** Run state, fences and other small JSON values, with compare-and-set. */
  getState<T>(key: string, options?: StateKeyOptions): Promise<StateEntry<T> | undefined>;
  /** Returns false when `ifVersion` did not match (someone else wrote first). */
  putState<T>(key: string, value: T, options?: PutStateOptions): Promise<boolean>;
  /**
   * `putState` that returns the new version (undefined when `ifVersion` did not match), so the writer can
   * compare-and-set again without reading. A given version is one round trip to the backend.
   */
  casState<T>(key: string, value: T, options?: PutStateOptions): Promise<string | undefined>;
  /** Deletes the live entry (only if it has `ifVersion`, when given); false when there was none to delete. */
  deleteState(key: string, ifVersion?: string, options?: StateKeyOptions): Promise<boolean>;
  /**
   * Live state entries whose key starts with `prefix`, a page of about `limit` at a time; pass the returned
   * cursor back for the next page (none: done). Entries that exist throughout are listed at least once.
   * Meant for background sweeps and views, not for decisions that must be exact.
   */
  listState<T>(prefix: string, options?: { cursor?: string; limit?: number }): Promise<StatePage<T>>;
  /** `get` of many interactions in one round trip, in order. */
  getMany(requestIds: readonly string[]): Promise<Array<InteractionRecord | undefined>>;
  /**
   * The sessions' event log (contract §11): frames kept for replay and followed live across instances.
   * A store of your own without one gets an in-process log from the kit (replay within one process).
   */
  readonly log?: EventLog;

  close(): Promise<void>;
}

/** Any failure to reach the backend, or an answer slower than the store's budget. Maps to 503. */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

export interface StoreOptions {
  /** How long finished interactions stay as tombstones so late duplicates get 409/410, not 404. @default 24 h */
  retentionMs?: number;
  /** Budget for one store operation before it fails with StoreUnavailableError. @default 1500 */
  timeoutMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
  /**
   * Key prefix, so several apps can share one Redis or SQLite file. On PostgreSQL it also names the schema
   * the store's tables live in (created on open), so each app's tables stand apart. @default 'ask_user'
   */
  namespace?: string;
  /**
   * SQLite only: what a commit survives. `normal`: a killed process (kill -9), not a power loss or OS
   * crash, which may drop the last commits; `full`: both, at one or two fsyncs per write. @default 'normal'
   */
  sqliteSynchronous?: 'normal' | 'full';
  /**
   * PostgreSQL only: connections the store opens at most (as load needs them), besides one for LISTEN once
   * something is watched. Each carries many statements at once (pipelined), so a few serve many requests;
   * more let the server use more cores for one instance. Keep instances × (pool size + 1) under the
   * server's `max_connections` (100 by default, 97 for ordinary users): with the default, nineteen
   * instances share a default server. @default 4
   */
  postgresPoolSize?: number;
  /**
   * Redis Cluster: replicas that must confirm a write (WAIT) before it is acknowledged, so an answer
   * acknowledged with 200 survives its master's failover. Costs one round trip per write; 0 turns it off.
   * @default 1
   */
  clusterWaitReplicas?: number;
  /**
   * What the event log keeps (contract §11): `windowMs` after a session's last frame (the replay window,
   * default 10 minutes), per run `maxFrames` (10,000) and `maxBytes` (1 MiB), `maxRuns` (32) per session.
   */
  eventLog?: Partial<LogLimits>;
}
