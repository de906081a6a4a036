/**
 * The PendingStore semantics on top of any Backend: expiry read through the injected clock, tombstones,
 * the session pointer, versioned state. Every write is one `swap`, so what is atomic here is exactly what
 * the backend's swap makes atomic.
 *
 * Two clocks are in play on purpose. `options.now` decides what the caller sees (expired, purged), so tests
 * can move time; the physical TTL on each row is a duration from that clock applied on the real one, so the
 * backend drops rows about when they stop mattering and never earlier.
 */
import { randomUUID } from 'node:crypto';
import { decodeEnvelope, encodeEnvelope, type Backend, type Expectation } from './backend.js';
import { eventLogOver, resolveLogLimits, type LogLimits } from './event-log.js';
import { MemoryLog } from './memory-log.js';
import { physicalKeys } from './physical-keys.js';
import { asStoreFailure, StoreError, withinBudget } from './store-errors.js';
import {
  isPastExpiry,
  StoreUnavailableError,
  type ClaimOptions,
  type ClaimOutcome,
  type InteractionRecord,
  type PendingStore,
  type PutStateOptions,
  type Resolution,
  type StateEntry,
  type StatePage,
  type StateKeyOptions,
  type StoreOptions,
} from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** StoreOptions.postgresPoolSize's default: nineteen instances, each with its LISTEN connection too, fit a default server. */
export const DEFAULT_POSTGRES_POOL_SIZE = 4;

/** What one compare-and-swap attempt returns when its swap lost and it must read again. */
const RETRY = Symbol('retry');
const DONE = { done: undefined } as const;
/** What a compare-and-swap decides on one reading: settle with `done`, or write and then return `result`. */
type Step<T> = { done: T } | { write: StoredInteraction; result: T };
/**
 * Physical TTLs only collect garbage; what a caller sees is decided on the logical clock. The grace keeps
 * a row around a little past its logical end, so a clock that runs slow (a frozen test clock, a slightly
 * behind instance) never finds a row gone that it still considers live.
 */
const PHYSICAL_GRACE_MS = 60_000;
/** A swap fails only when another writer changed the row since our read; re-reading settles it. */
const MAX_ATTEMPTS = 8;

interface StoredInteraction {
  record: InteractionRecord;
  /** Logical time (options.now) after which the interaction reads as unknown. */
  purgeAt: number;
}
interface StoredPointer {
  requestId: string;
}
/** Written in this key order: backends read the version and purgeAt from the row's head (backend.ts). */
interface StoredState<T> {
  version: string;
  purgeAt?: number;
  value: T;
}
interface Loaded<T> {
  /** The raw row as stored, even when its value is dead: a swap must expect exactly it. */
  raw: string | undefined;
  value: T | undefined;
}

/**
 * Raw interaction rows this process read or wrote last, so a claim right after a lookup, or a mark right
 * after a claim, can swap against them without reading again. A stale entry only makes the swap fail,
 * and the slow path reads; a decision not to write is never taken on a cached row.
 */
const RECENT_ROWS = 1024;

export function resolveOptions(options: StoreOptions = {}): Required<StoreOptions> & { eventLog: LogLimits } {
  const {
    retentionMs = DAY_MS,
    timeoutMs = 1500,
    now = Date.now,
    namespace = 'ask_user',
    sqliteSynchronous = 'normal',
    postgresPoolSize = DEFAULT_POSTGRES_POOL_SIZE,
    clusterWaitReplicas = 1,
  } = options;
  if (!Number.isFinite(retentionMs) || retentionMs <= 0) {
    throw new StoreError('invalid_store_options', `retentionMs must be a positive number of milliseconds, got ${retentionMs}`);
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new StoreError('invalid_store_options', `timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(namespace)) {
    throw new StoreError(
      'invalid_store_options',
      `namespace must be 1-64 characters of A-Z a-z 0-9 _ . - (no ":"), got ${JSON.stringify(namespace)}`,
    );
  }
  if (sqliteSynchronous !== 'normal' && sqliteSynchronous !== 'full') {
    throw new StoreError('invalid_store_options', `sqliteSynchronous must be 'normal' or 'full', got ${JSON.stringify(sqliteSynchronous)}`);
  }
  if (!Number.isSafeInteger(postgresPoolSize) || postgresPoolSize < 1) {
    throw new StoreError('invalid_store_options', `postgresPoolSize must be a positive integer, got ${postgresPoolSize}`);
  }
  if (!Number.isSafeInteger(clusterWaitReplicas) || clusterWaitReplicas < 0) {
    throw new StoreError('invalid_store_options', `clusterWaitReplicas must be a whole number >= 0, got ${clusterWaitReplicas}`);
  }
  let eventLog: LogLimits;
  try {
    eventLog = resolveLogLimits(options.eventLog);
  } catch (error) {
    throw new StoreError('invalid_store_options', (error as Error).message);
  }
  return { retentionMs, timeoutMs, now, namespace, sqliteSynchronous, postgresPoolSize, clusterWaitReplicas, eventLog };
}

/** The backend write deadline sits before the caller's timeout so the reply has time to come back. */
function writeMargin(timeoutMs: number): number {
  return Math.min(250, Math.floor(timeoutMs / 4));
}

const expectFor = (raw: string | undefined): Expectation => (raw === undefined ? { kind: 'absent' } : { kind: 'raw', raw });
const ttlUntil = (purgeAt: number, now: number): number => Math.max(1, purgeAt - now);

export function createKeyedStore(backend: Backend, options: StoreOptions = {}): PendingStore {
  const { retentionMs, timeoutMs, now: clock, namespace, eventLog } = resolveOptions(options);
  const margin = writeMargin(timeoutMs);
  const keys = physicalKeys(namespace, backend.slotted === true);
  const interactionKey = keys.interaction;
  const sessionKey = keys.session;
  const stateKey = keys.state;
  let closed = false;
  const recent = new Map<string, string>();
  const remember = (key: string, raw: string | undefined) => {
    recent.delete(key);
    if (raw === undefined) return;
    recent.set(key, raw);
    if (recent.size > RECENT_ROWS) recent.delete(recent.keys().next().value!);
  };

  /** One public operation: bounded in time, errors mapped, a write deadline for every swap inside. */
  function operation<T>(name: string, work: (deadline: number) => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new StoreUnavailableError(`${backend.label} store is closed; ${name} was not run`));
    const deadline = Date.now() + timeoutMs - margin;
    // A backend that settles inline cannot hang; a timer per operation would only cost.
    if (backend.settlesInline === true) {
      return work(deadline).catch((error: unknown) => {
        throw asStoreFailure(error, `${backend.label} store ${name}`);
      });
    }
    return withinBudget(`${backend.label} store ${name}`, timeoutMs, () => work(deadline));
  }

  async function load<T>(key: string): Promise<Loaded<T>> {
    const raw = await backend.read(key);
    return { raw, value: raw === undefined ? undefined : decodeEnvelope<T>(raw, key) };
  }

  /** `ttlMs` is logical time left; the row physically outlives it by a grace period (see PHYSICAL_GRACE_MS). */
  async function write(key: string, expect: Expectation, value: unknown, ttlMs: number | undefined, deadline: number) {
    const physicalTtl = ttlMs === undefined ? undefined : ttlMs + PHYSICAL_GRACE_MS;
    return backend.swap({ key, expect, next: value === null ? null : encodeEnvelope(value, physicalTtl), ttlMs: physicalTtl, deadline });
  }

  /** What a caller may see of a stored interaction at `now`: undefined past retention, expired past expiresAt. */
  function view(stored: StoredInteraction | undefined, now: number): InteractionRecord | undefined {
    if (stored === undefined || now >= stored.purgeAt) return undefined;
    const { record } = stored;
    if (record.status === 'pending' && isPastExpiry(record, now)) return { ...record, status: 'expired' };
    return record;
  }

  async function readInteraction(requestId: string): Promise<InteractionRecord | undefined> {
    const key = interactionKey(requestId);
    const loaded = await load<StoredInteraction>(key);
    remember(key, loaded.raw);
    return view(loaded.value, clock());
  }

  /** Swap an interaction row and remember what is there now. */
  async function writeInteraction(requestId: string, expect: Expectation, stored: StoredInteraction, ttlMs: number, deadline: number) {
    const key = interactionKey(requestId);
    const next = encodeEnvelope(stored, ttlMs + PHYSICAL_GRACE_MS);
    const ok = await backend.swap({ key, expect, next, ttlMs: ttlMs + PHYSICAL_GRACE_MS, deadline });
    remember(key, ok ? next : undefined);
    return ok;
  }

  return {
    kind: backend.kind,
    // A backend without a log of its own (a custom one) logs in this process only.
    log: eventLogOver(backend.log ?? MemoryLog.of(backend), keys.log, eventLog, (name, work) => operation(name, () => work())),

    create: (record) =>
      operation('create', async (deadline) => {
        if (record.status !== 'pending' || record.resolution !== undefined || record.toolResultWritten) {
          throw new StoreError('invalid_record', `create needs a fresh pending record, got status ${JSON.stringify(record.status)}`);
        }
        const now = clock();
        const purgeAt = record.expiresAt + retentionMs;
        const ttlMs = ttlUntil(purgeAt, now);
        let fresh: string | undefined;
        /** True when the id is free; throws on a clash; false when an identical record (a retry) is there. */
        const isFree = (loaded: Loaded<StoredInteraction>): boolean => {
          const { value } = loaded;
          if (value === undefined || now >= value.purgeAt) return true;
          // The same record again is a retry whose first reply was lost; anything else is a real clash.
          fresh ??= JSON.stringify(record);
          if (JSON.stringify(value.record) === fresh) return false;
          throw new StoreError('duplicate_request_id', `requestId ${record.requestId} already holds an interaction; mint a new id per ask`);
        };
        const stored: StoredInteraction = { record, purgeAt };
        // Most ids are new: try to insert before reading. Record before pointer: if the pointer write then
        // fails, the record is never announced and lapses; a retry of the same create finds it identical
        // and writes the pointer.
        let settled = await writeInteraction(record.requestId, { kind: 'absent' }, stored, ttlMs, deadline);
        for (let attempt = 0; !settled; attempt++) {
          if (attempt === MAX_ATTEMPTS) throw contention('create', record.requestId);
          const loaded = await load<StoredInteraction>(interactionKey(record.requestId));
          // An identical record is there already (a retry): only the pointer may be missing.
          settled = !isFree(loaded) || (await writeInteraction(record.requestId, expectFor(loaded.raw), stored, ttlMs, deadline));
        }
        await write(
          sessionKey(record.sessionId),
          { kind: 'any' },
          { requestId: record.requestId } satisfies StoredPointer,
          ttlMs,
          deadline,
        );
        return;
      }),
    get: (requestId) => operation('get', () => readInteraction(requestId)),

    currentOf: (sessionId) =>
      operation('currentOf', async () => {
        const { value: pointer } = await load<StoredPointer>(sessionKey(sessionId));
        if (pointer === undefined) return undefined;
        const record = await readInteraction(pointer.requestId);
        if (record === undefined || record.sessionId !== sessionId) return undefined;
        return record.status === 'pending' || record.status === 'expired' ? record : undefined;
      }),

    claim: (requestId, resolution, claimOptions = {}) =>
      operation('claim', (deadline) => claim(requestId, resolution, claimOptions, deadline)),

    markToolResultWritten: (requestId) =>
      operation('markToolResultWritten', (deadline) =>
        swapInteraction('markToolResultWritten', requestId, deadline, ({ value }, now) => {
          // Past retention there is nothing left to roll forward, so there is nothing to mark.
          if (value === undefined || now >= value.purgeAt) return DONE;
          if (value.record.status === 'pending') {
            throw new StoreError('not_resolved', `interaction ${requestId} is still pending; claim it before writing its ToolResult`);
          }
          if (value.record.toolResultWritten) return DONE;
          return { write: { record: { ...value.record, toolResultWritten: true }, purgeAt: value.purgeAt }, result: undefined };
        }),
      ),

    getState: <T>(key: string, getOptions?: StateKeyOptions) =>
      operation('getState', async (): Promise<StateEntry<T> | undefined> => {
        const { value } = await load<StoredState<T>>(stateKey(key, getOptions?.sessionId));
        if (value === undefined || (value.purgeAt !== undefined && clock() >= value.purgeAt)) return undefined;
        return { value: value.value, version: value.version };
      }),

    putState: async <T>(key: string, value: T, putOptions?: PutStateOptions) => (await casState(key, value, putOptions)) !== undefined,

    casState,

    deleteState: (key, ifVersion, deleteOptions) =>
      operation('deleteState', async (deadline) => {
        const physical = stateKey(key, deleteOptions?.sessionId);
        // With a version, one conditional delete settles it unless the row is in an older shape.
        if (ifVersion !== undefined && (await write(physical, versionOf(ifVersion), null, undefined, deadline))) return true;
        return untilSwapped('deleteState', key, async () => {
          const loaded = await load<StoredState<unknown>>(physical);
          const live = liveState(loaded.value, clock());
          if (loaded.raw === undefined) return { done: false };
          if (ifVersion !== undefined && live?.version !== ifVersion) return { done: false };
          // A dead row is removed too, but only a live one counts as "deleted" for the caller.
          return (await write(physical, { kind: 'raw', raw: loaded.raw }, null, undefined, deadline))
            ? { done: live !== undefined }
            : RETRY;
        });
      }),

    listState: <T>(prefix: string, { cursor, limit = 500 }: { cursor?: string; limit?: number } = {}) =>
      operation('listState', async (): Promise<StatePage<T>> => {
        const full = keys.statePrefix(prefix);
        const page = await backend.scan(full, cursor, limit);
        const now = clock();
        const entries = page.entries.flatMap(([key, raw]) => {
          const live = liveState(decodeEnvelope<StoredState<T>>(raw, key), now);
          return key.startsWith(full) && live ? [{ key: keys.logicalState(key), value: live.value, version: live.version }] : [];
        });
        return page.cursor === undefined ? { entries } : { entries, cursor: page.cursor };
      }),

    getMany: (requestIds) =>
      operation('getMany', async () => {
        const keys = requestIds.map(interactionKey);
        const raws = requestIds.length === 0 ? [] : await backend.readMany(keys);
        const now = clock();
        return raws.map((raw, i) => (raw === undefined ? undefined : view(decodeEnvelope<StoredInteraction>(raw, keys[i]!), now)));
      }),

    async close() {
      if (closed) return;
      closed = true;
      await backend.close();
    },
  };

  function claim(
    requestId: string,
    resolution: Resolution,
    { allowExpired = false }: ClaimOptions,
    deadline: number,
  ): Promise<ClaimOutcome> {
    return swapInteraction('claim', requestId, deadline, ({ value }, now): Step<ClaimOutcome> => {
      const record = view(value, now);
      if (record === undefined || value === undefined) return { done: { ok: false, reason: 'not_found' } };
      // "Expired" answers a late answer whether or not someone closed the interaction yet.
      if (record.status === 'expired' && !allowExpired) return { done: { ok: false, reason: 'expired', record } };
      if (value.record.status !== 'pending') return { done: { ok: false, reason: 'already_resolved', record } };
      const resolved: InteractionRecord = { ...value.record, status: resolution.status, resolution };
      // Lost the race: the next read sees the winner's resolution.
      return { write: { record: resolved, purgeAt: Math.max(now, resolution.at) + retentionMs }, result: { ok: true, record: resolved } };
    });
  }

  /**
   * A compare-and-swap on an interaction row. The first try decides on the row this process saw last, if
   * any, and swaps against it without reading; a decision not to write, or a failed swap, is taken again
   * on a fresh read, so nothing is ever concluded from a cached row alone.
   */
  async function swapInteraction<T>(
    name: string,
    requestId: string,
    deadline: number,
    decide: (loaded: Loaded<StoredInteraction>, now: number) => Step<T>,
  ): Promise<T> {
    const key = interactionKey(requestId);
    const cached = recent.get(key);
    if (cached !== undefined) {
      const now = clock();
      let step: Step<T> | undefined;
      try {
        step = decide({ raw: cached, value: decodeEnvelope<StoredInteraction>(cached, key) }, now);
      } catch {
        step = undefined; // decided again below, on what the store holds
      }
      if (step && 'write' in step) {
        if (await writeInteraction(requestId, { kind: 'raw', raw: cached }, step.write, ttlUntil(step.write.purgeAt, now), deadline)) {
          return step.result;
        }
      }
    }
    return untilSwapped(name, requestId, async () => {
      const loaded = await load<StoredInteraction>(key);
      remember(key, loaded.raw);
      const now = clock();
      const step = decide(loaded, now);
      if ('done' in step) return step;
      return (await writeInteraction(requestId, expectFor(loaded.raw), step.write, ttlUntil(step.write.purgeAt, now), deadline))
        ? { done: step.result }
        : RETRY;
    });
  }

  async function casState<T>(key: string, value: T, putOptions: PutStateOptions = {}): Promise<string | undefined> {
    return operation('putState', async (deadline) => {
      const { ifVersion, ttlMs, sessionId } = putOptions;
      const physical = stateKey(key, sessionId);
      if (ttlMs !== undefined && (!Number.isFinite(ttlMs) || ttlMs <= 0)) {
        throw new StoreError('invalid_store_options', `putState ttlMs must be a positive number, got ${ttlMs}`);
      }
      const fresh = (now: number): StoredState<T> => ({
        version: randomUUID(),
        ...(ttlMs !== undefined ? { purgeAt: now + ttlMs } : {}),
        value,
      });
      // One swap without a read settles the usual case; a failure is looked at on a fresh read, since a
      // row past its logical life counts as absent and a row in an older shape hides its version.
      const first = fresh(clock());
      const expect: Expectation =
        ifVersion === undefined ? { kind: 'any' } : ifVersion === null ? { kind: 'absent' } : versionOf(ifVersion);
      if (await write(physical, expect, first, ttlMs, deadline)) return first.version;
      return untilSwapped('putState', key, async () => {
        const loaded = await load<StoredState<T>>(physical);
        const now = clock();
        const live = liveState(loaded.value, now);
        if (ifVersion === null && live !== undefined) return { done: undefined };
        if (typeof ifVersion === 'string' && live?.version !== ifVersion) return { done: undefined };
        const next = fresh(now);
        const expectRead = ifVersion === undefined ? ({ kind: 'any' } as const) : expectFor(loaded.raw);
        // Someone who wrote between our read and our swap makes it fail; the next read says whether it still fits.
        return (await write(physical, expectRead, next, ttlMs, deadline)) ? { done: next.version } : RETRY;
      });
    });
  }

  function versionOf(version: string): Expectation {
    return { kind: 'version', version, liveAt: clock() };
  }

  /**
   * The one shape of every compare-and-swap here: read, decide, swap against what was read; a lost swap
   * reads again, and a key that never settles within MAX_ATTEMPTS is reported as the store being unusable.
   */
  async function untilSwapped<T>(name: string, id: string, attempt: () => Promise<{ done: T } | typeof RETRY>): Promise<T> {
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const outcome = await attempt();
      if (outcome !== RETRY) return outcome.done;
    }
    throw contention(name, id);
  }

  function contention(name: string, id: string): StoreUnavailableError {
    return new StoreUnavailableError(`${backend.label} store ${name} for ${id} kept losing to concurrent writers; retry later`);
  }
}

function liveState<T>(stored: StoredState<T> | undefined, now: number): StoredState<T> | undefined {
  if (stored === undefined || (stored.purgeAt !== undefined && now >= stored.purgeAt)) return undefined;
  return stored;
}
