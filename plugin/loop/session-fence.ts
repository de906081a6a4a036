/**
 * One runner per session across every instance sharing the store: a lease written with
 * `putState(ifVersion: null)` and a TTL, renewed while the run works and deleted when it stops. A lease
 * whose holder died (kill -9) is taken over once its `until` has passed, even on a backend slow to expire it.
 */
import { randomBytes } from 'node:crypto';
import type { PendingStore } from '../store/types.js';

interface LeaseValue {
  owner: string;
  /** Epoch milliseconds after which the lease may be taken over. */
  until: number;
  /**
   * Set by a holder whose run is paused on this interaction and will write no more run state: a
   * continue for that interaction (or a new message while the run is still paused on it) may take the
   * lease over at once instead of waiting out a holder killed before it could release.
   */
  parkedOn?: string;
}

/** Decides, for a lease held by someone else, whether it may be taken over before `until`. */
export type TakeOver = (held: Readonly<LeaseValue>) => boolean | Promise<boolean>;

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

export interface SessionFenceOptions {
  /** Lease lifetime; renewed every `renewEveryMs` while held. @default 15000 */
  ttlMs?: number;
  /** How often a held lease is renewed; keep it well under `ttlMs`. @default a third of `ttlMs` (at least 50) */
  renewEveryMs?: number;
  /** How long `acquire` keeps trying before it reports the session busy. @default 0 */
  waitMs?: number;
  /** @default 'lease:' */
  keyPrefix?: string;
  now?: () => number;
}

export interface Lease {
  readonly sessionId: string;
  /** True once another holder took the lease over (ours had lapsed): stop writing. */
  readonly lost: boolean;
  /** Mark the lease as parked on `requestId` (see LeaseValue.parkedOn); call before persisting the pause. */
  park(requestId: string): Promise<void>;
  /** Idempotent. */
  release(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SessionFence {
  readonly #store: PendingStore;
  readonly #ttlMs: number;
  readonly #renewEveryMs: number;
  readonly #waitMs: number;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(store: PendingStore, options: SessionFenceOptions = {}) {
    const {
      ttlMs = 15_000,
      renewEveryMs = Math.max(50, Math.floor(ttlMs / 3)),
      waitMs = 0,
      keyPrefix = 'lease:',
      now = Date.now,
    } = options;
    this.#store = store;
    this.#ttlMs = ttlMs;
    this.#renewEveryMs = renewEveryMs;
    this.#waitMs = waitMs;
    this.#prefix = keyPrefix;
    this.#now = now;
  }

  key(sessionId: string): string {
    return `${this.#prefix}${sessionId}`;
  }

  /** The lease, or SessionBusyError when someone else holds it past `waitMs`. */
  async acquire(sessionId: string, waitMs = this.#waitMs, takeOver?: TakeOver): Promise<Lease> {
    const deadline = this.#now() + waitMs;
    for (;;) {
      const lease = await this.#tryAcquire(sessionId, takeOver);
      if (lease) return lease;
      if (this.#now() >= deadline) throw new SessionBusyError(sessionId);
      await sleep(40);
    }
  }

  /** Whether any live lease holds the session (for diagnostics and tests). */
  async isHeld(sessionId: string): Promise<boolean> {
    const entry = await this.#store.getState<LeaseValue>(this.key(sessionId));
    return !!entry && entry.value.until > this.#now();
  }

  async #tryAcquire(sessionId: string, takeOver?: TakeOver): Promise<Lease | undefined> {
    const key = this.key(sessionId);
    const owner = randomBytes(12).toString('base64url');
    const value = (): LeaseValue => ({ owner, until: this.#now() + this.#ttlMs });
    let ok = await this.#store.putState(key, value(), { ifVersion: null, ttlMs: this.#ttlMs });
    if (!ok) {
      const held = await this.#store.getState<LeaseValue>(key);
      if (!held) return undefined; // released between our two calls; the caller's next try wins or loses fairly
      if (held.value.until > this.#now() && !(held.value.parkedOn && takeOver && (await takeOver(held.value)))) return undefined;
      ok = await this.#store.putState(key, value(), { ifVersion: held.version, ttlMs: this.#ttlMs });
      if (!ok) return undefined;
    }
    return this.#hold(sessionId, key, owner);
  }

  #hold(sessionId: string, key: string, owner: string): Lease {
    let lost = false;
    let released = false;
    let parkedOn: string | undefined;
    const mine = async () => {
      const entry = await this.#store.getState<LeaseValue>(key);
      return entry && entry.value.owner === owner ? entry : undefined;
    };
    const write = async () => {
      // A renewal and a park may read the same version; the one that loses the swap tries again, so a
      // park is never silently overwritten by a renewal that carried no `parkedOn`.
      for (let attempt = 0; attempt < 5; attempt++) {
        const entry = await mine();
        if (!entry) {
          lost = true;
          return;
        }
        const value: LeaseValue = { owner, until: this.#now() + this.#ttlMs, ...(parkedOn ? { parkedOn } : {}) };
        if (await this.#store.putState(key, value, { ifVersion: entry.version, ttlMs: this.#ttlMs })) return;
      }
    };
    const timer = setInterval(() => {
      if (!released) write().catch(() => undefined); // a failed renewal is retried on the next tick
    }, this.#renewEveryMs);
    timer.unref();
    return {
      sessionId,
      get lost() {
        return lost;
      },
      park: async (requestId) => {
        parkedOn = requestId;
        await write();
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        // A renewal in flight may land between our read and our delete and bump the version: read again.
        // A store error is retried too; the last one is thrown (the lease then lapses after its TTL).
        let failure: unknown;
        for (let attempt = 0; attempt < 5; attempt++) {
          try {
            const entry = await mine();
            if (!entry || (await this.#store.deleteState(key, entry.version))) return;
          } catch (err) {
            failure = err;
            await sleep(20 * (attempt + 1));
          }
        }
        if (failure !== undefined) throw failure;
      },
    };
  }
}
