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
  type StoreOptions,
} from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What one compare-and-swap attempt returns when its swap lost and it must read again. */
const RETRY = Symbol('retry');
const DONE = { done: undefined } as const;
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
interface StoredState<T> {
  value: T;
  version: string;
  purgeAt?: number;
}
interface Loaded<T> {
  /** The raw row as stored, even when its value is dead: a swap must expect exactly it. */
  raw: string | undefined;
  value: T | undefined;
}

export function resolveOptions(options: StoreOptions = {}): Required<StoreOptions> {
  const { retentionMs = DAY_MS, timeoutMs = 1500, now = Date.now, namespace = 'ask_user' } = options;
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
  return { retentionMs, timeoutMs, now, namespace };
}

/** The backend write deadline sits before the caller's timeout so the reply has time to come back. */
function writeMargin(timeoutMs: number): number {
  return Math.min(250, Math.floor(timeoutMs / 4));
}

const expectFor = (raw: string | undefined): Expectation => (raw === undefined ? { kind: 'absent' } : { kind: 'raw', raw });
const ttlUntil = (purgeAt: number, now: number): number => Math.max(1, purgeAt - now);

export function createKeyedStore(backend: Backend, options: StoreOptions = {}): PendingStore {
  const { retentionMs, timeoutMs, now: clock, namespace } = resolveOptions(options);
  const margin = writeMargin(timeoutMs);
  const interactionKey = (requestId: string) => `${namespace}:interaction:${requestId}`;
  const sessionKey = (sessionId: string) => `${namespace}:session:${sessionId}`;
  const stateKey = (key: string) => `${namespace}:state:${key}`;
  let closed = false;

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
    const { value } = await load<StoredInteraction>(interactionKey(requestId));
    return view(value, clock());
  }

  return {
    kind: backend.kind,

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
        let loaded = await load<StoredInteraction>(interactionKey(record.requestId));
        const free = isFree(loaded);
        // Pointer before record: if the record write then fails, the pointer dangles and currentOf reads
        // nothing, and a retry of the same create rewrites both.
        await write(
          sessionKey(record.sessionId),
          { kind: 'any' },
          { requestId: record.requestId } satisfies StoredPointer,
          ttlMs,
          deadline,
        );
        if (!free) return;
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const stored: StoredInteraction = { record, purgeAt };
          if (await write(interactionKey(record.requestId), expectFor(loaded.raw), stored, ttlMs, deadline)) return;
          loaded = await load<StoredInteraction>(interactionKey(record.requestId));
          if (!isFree(loaded)) return;
        }
        throw contention('create', record.requestId);
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
        untilSwapped('markToolResultWritten', requestId, async () => {
          const { raw, value } = await load<StoredInteraction>(interactionKey(requestId));
          const now = clock();
          // Past retention there is nothing left to roll forward, so there is nothing to mark.
          if (value === undefined || raw === undefined || now >= value.purgeAt) return DONE;
          if (value.record.status === 'pending') {
            throw new StoreError('not_resolved', `interaction ${requestId} is still pending; claim it before writing its ToolResult`);
          }
          if (value.record.toolResultWritten) return DONE;
          const stored: StoredInteraction = { record: { ...value.record, toolResultWritten: true }, purgeAt: value.purgeAt };
          return (await write(interactionKey(requestId), { kind: 'raw', raw }, stored, ttlUntil(value.purgeAt, now), deadline))
            ? DONE
            : RETRY;
        }),
      ),

    getState: <T>(key: string) =>
      operation('getState', async (): Promise<StateEntry<T> | undefined> => {
        const { value } = await load<StoredState<T>>(stateKey(key));
        if (value === undefined || (value.purgeAt !== undefined && clock() >= value.purgeAt)) return undefined;
        return { value: value.value, version: value.version };
      }),

    putState: <T>(key: string, value: T, putOptions: PutStateOptions = {}) =>
      operation('putState', async (deadline) => {
        const { ifVersion, ttlMs } = putOptions;
        if (ttlMs !== undefined && (!Number.isFinite(ttlMs) || ttlMs <= 0)) {
          throw new StoreError('invalid_store_options', `putState ttlMs must be a positive number, got ${ttlMs}`);
        }
        return untilSwapped('putState', key, async () => {
          const loaded = await load<StoredState<T>>(stateKey(key));
          const now = clock();
          const live = liveState(loaded.value, now);
          if (ifVersion === null && live !== undefined) return { done: false };
          if (typeof ifVersion === 'string' && live?.version !== ifVersion) return { done: false };
          const next: StoredState<T> = { value, version: randomUUID() };
          if (ttlMs !== undefined) next.purgeAt = now + ttlMs;
          const expect = ifVersion === undefined ? ({ kind: 'any' } as const) : expectFor(loaded.raw);
          // Someone who wrote between our read and our swap makes it fail; the next read says whether it still fits.
          return (await write(stateKey(key), expect, next, ttlMs, deadline)) ? { done: true } : RETRY;
        });
      }),

    deleteState: (key, ifVersion) =>
      operation('deleteState', (deadline) =>
        untilSwapped('deleteState', key, async () => {
          const loaded = await load<StoredState<unknown>>(stateKey(key));
          const live = liveState(loaded.value, clock());
          if (loaded.raw === undefined) return { done: false };
          if (ifVersion !== undefined && live?.version !== ifVersion) return { done: false };
          // A dead row is removed too, but only a live one counts as "deleted" for the caller.
          return (await write(stateKey(key), { kind: 'raw', raw: loaded.raw }, null, undefined, deadline))
            ? { done: live !== undefined }
            : RETRY;
        }),
      ),

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
    return untilSwapped('claim', requestId, async (): Promise<{ done: ClaimOutcome } | typeof RETRY> => {
      const { raw, value } = await load<StoredInteraction>(interactionKey(requestId));
      const now = clock();
      const record = view(value, now);
      if (record === undefined || value === undefined || raw === undefined) return { done: { ok: false, reason: 'not_found' } };
      // "Expired" answers a late answer whether or not someone closed the interaction yet.
      if (record.status === 'expired' && !allowExpired) return { done: { ok: false, reason: 'expired', record } };
      if (value.record.status !== 'pending') return { done: { ok: false, reason: 'already_resolved', record } };
      const resolved: InteractionRecord = { ...value.record, status: resolution.status, resolution };
      const purgeAt = Math.max(now, resolution.at) + retentionMs;
      const stored: StoredInteraction = { record: resolved, purgeAt };
      // Lost the race: the next read sees the winner's resolution.
      return (await write(interactionKey(requestId), { kind: 'raw', raw }, stored, ttlUntil(purgeAt, now), deadline))
        ? { done: { ok: true, record: resolved } }
        : RETRY;
    });
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
