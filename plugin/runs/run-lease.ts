/**
 * One runner per session across every instance sharing the store. The lease is a field of the run state
 * (stored-runs.ts), so it is taken, kept and let go by the run's own compare-and-set writes, and a runner
 * whose lease was taken over finds out on its next write. A lease holds until its `until`; after that,
 * while its process's heartbeat still names it. One heartbeat per process keeps all of its leases alive,
 * so a thousand open streams cost one write every few seconds, not a thousand.
 */
import { randomBytes } from 'node:crypto';
import type { PendingStore } from '../store/types.js';
import { StateConflictError, type StoredRun, type StoredRuns } from './stored-runs.js';

/** The runner working on a session, as its run state records it. */
export interface RunLease {
  /** This run's holder: one per chat, continue or sweep. */
  owner: string;
  /** The process holding it, whose heartbeat keeps the lease alive past `until`. */
  instance: string;
  /** Epoch ms until which the lease holds without looking at the heartbeat. */
  until: number;
}

export class SessionBusyError extends Error {
  readonly code = 'session_busy';
  constructor(sessionId: string) {
    super(
      `session ${JSON.stringify(sessionId)} is already running (another message or continue holds it); wait for its stream to end and retry`,
    );
    this.name = 'SessionBusyError';
  }
}

/** This runner's lease lapsed and another runner took the session: it must stop writing. */
export class LeaseLostError extends Error {
  readonly code = 'session_busy';
  constructor(sessionId: string) {
    super(
      `session ${JSON.stringify(sessionId)} was taken over by another runner after this run's lease lapsed; its last step was not saved`,
    );
    this.name = 'LeaseLostError';
  }
}

interface Heartbeat {
  /** Epoch ms until which the owners below count as running. */
  until: number;
  owners: string[];
}

export interface RunLeasesOptions {
  /** How long a lease or a heartbeat holds without renewal. @default 15000 */
  ttlMs?: number;
  /** How often the heartbeat is renewed while this process holds a lease. @default a third of `ttlMs` (at least 50) */
  beatEveryMs?: number;
  /** @default 'instance:' */
  keyPrefix?: string;
  now?: () => number;
}

/** One run's hold on its session: written into the run state, and checked on every write after. */
export class Hold {
  #lost = false;
  /** Set once a write of the run let this lease go (a pause or an outcome saved): nothing left to clear. */
  settled = false;
  constructor(
    readonly sessionId: string,
    readonly lease: RunLease,
  ) {}

  /** True once a write found another runner's lease in the run state. */
  get lost(): boolean {
    return this.#lost;
  }

  /** Throws LeaseLostError unless `current` (a run of any runtime) is still held by this run. */
  check<T extends { lease?: RunLease }>(current: T | undefined): T {
    if (!current || current.lease?.owner !== this.lease.owner) {
      this.#lost = true;
      throw new LeaseLostError(this.sessionId);
    }
    return current;
  }
}

export class RunLeases {
  /** This process, as named in its leases and its heartbeat. */
  readonly instance = randomBytes(9).toString('base64url');
  readonly #store: PendingStore;
  readonly #ttlMs: number;
  readonly #beatEveryMs: number;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #held = new Set<string>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(store: PendingStore, options: RunLeasesOptions = {}) {
    const { ttlMs = 15_000, beatEveryMs = Math.max(50, Math.floor(ttlMs / 3)), keyPrefix = 'instance:', now = Date.now } = options;
    this.#store = store;
    this.#ttlMs = ttlMs;
    this.#beatEveryMs = beatEveryMs;
    this.#prefix = keyPrefix;
    this.#now = now;
  }

  /** A new lease, kept alive by this process's heartbeat until `release`. */
  mint(sessionId: string): Hold {
    const owner = randomBytes(12).toString('base64url');
    this.#held.add(owner);
    // The first beat lands a third of a TTL from now, well before this lease's own `until`.
    this.#timer ??= setInterval(() => void this.beat(), this.#beatEveryMs);
    this.#timer.unref();
    return new Hold(sessionId, { owner, instance: this.instance, until: this.#now() + this.#ttlMs });
  }

  /** Stop keeping the lease alive; the run state lets it go, or it lapses within a TTL. Idempotent. */
  release(hold: Hold): void {
    this.#held.delete(hold.lease.owner);
    if (this.#held.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Whether `lease` still keeps other runners out. */
  async holds(lease: RunLease | undefined): Promise<boolean> {
    if (!lease) return false;
    // This process knows its own runs exactly: a run that ended without letting go holds nothing.
    if (lease.instance === this.instance) return this.#held.has(lease.owner);
    if (lease.until > this.#now()) return true;
    const beat = await this.#store.getState<Heartbeat>(`${this.#prefix}${lease.instance}`);
    return !!beat && beat.value.until > this.#now() && beat.value.owners.includes(lease.owner);
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Renew the heartbeat now (the timer does it every `beatEveryMs` while a lease is held). */
  async beat(): Promise<void> {
    const value: Heartbeat = { until: this.#now() + this.#ttlMs, owners: [...this.#held] };
    // A failed beat is retried on the next tick; leases minted since the last one still hold on `until`.
    await this.#store.putState(`${this.#prefix}${this.instance}`, value, { ttlMs: this.#ttlMs }).catch(() => undefined);
  }
}

/** A run of any runtime that carries its session's lease. */
type LeasedRun = StoredRun & { lease?: RunLease };

/**
 * Taking and letting go of a session's lease inside its run state, for any runtime's runs: `empty` makes
 * a session's first run; `onError` hears a failed clean-up (the lease then lapses within a TTL); `now`
 * times the wait for a busy lease.
 */
export function sessionLease<T extends LeasedRun>(
  states: StoredRuns<T>,
  leases: RunLeases,
  empty: (sessionId: string) => T,
  onError: (err: unknown) => void,
  now: () => number,
) {
  /**
   * Take the session's lease by writing it into the run state. `prepare` may change a run in the same
   * write (return undefined to take the lease alone). A lease someone else still holds is waited on for
   * up to `waitMs`, then refused with SessionBusyError.
   */
  async function acquire(
    hold: Hold,
    waitMs: number,
    prepare?: (current: T | undefined) => T | undefined,
  ): Promise<{ state: T; prepared: boolean }> {
    const { sessionId } = hold;
    const deadline = now() + waitMs;
    let entry = await states.entry(sessionId);
    let fresh = false;
    for (let lostSwaps = 0; lostSwaps < 25;) {
      const current = entry?.value;
      if (current?.lease && current.lease.owner !== hold.lease.owner && (await leases.holds(current.lease))) {
        // Busy is only concluded on a fresh read; then waited out in small steps.
        if (fresh && now() >= deadline) throw new SessionBusyError(sessionId);
        if (fresh) await new Promise((r) => setTimeout(r, 40));
      } else {
        const prepared = prepare?.(current);
        const base = prepared ?? current ?? empty(sessionId);
        const written = await states.put(sessionId, entry, { ...base, lease: hold.lease });
        if (written) return { state: written, prepared: prepared !== undefined };
        lostSwaps++;
      }
      entry = await states.read(sessionId);
      fresh = true;
    }
    throw new StateConflictError(`run state of session ${JSON.stringify(sessionId)} kept changing while taking its lease; retry later`);
  }

  /** After the run: a lease its last write did not let go (a failure on the way) is cleared now, if still ours. */
  async function letGo(hold: Hold): Promise<void> {
    leases.release(hold);
    if (hold.lost || hold.settled) return;
    await states
      .update(hold.sessionId, (cur) => (cur?.lease?.owner === hold.lease.owner ? { ...cur, lease: undefined } : undefined))
      .catch(onError); // unreleased, it lapses within a TTL
  }

  return { acquire, letGo };
}
