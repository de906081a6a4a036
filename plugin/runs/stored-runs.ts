/**
 * A session's run, persisted in the PendingStore next to its pending interaction (docs/protocol.md §7), so any
 * instance sharing the store — or this one after a crash — continues it from exactly where it paused. Every
 * runtime keeps its runs under its own key prefix (the loop's `run:`, the AI SDK's `aisdk:`). Every write is
 * a compare-and-set on the store's version; a lost race re-reads and re-applies the change. The session
 * lease lives in the same value (run-lease.ts), so taking it, saving a step and letting it go are the same
 * writes as the run's own.
 */
import type { PendingStore, StateEntry } from '../store/types.js';

/** A value that kept changing under every write attempt: another writer won each time. */
export class StateConflictError extends Error {
  readonly code = 'state_conflict';
  constructor(message: string) {
    super(message);
    this.name = 'StateConflictError';
  }
}

/** What a stored run needs for compare-and-set: its session, a revision, and when it was written. */
export interface StoredRun {
  sessionId: string;
  /** Bumped on every write; a writer recognizes its own write by it. */
  rev: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

/**
 * `undefined` from a mutation means "nothing to change" (the write was already done: idempotent). A
 * mutation returns a new value and never changes its argument, which may be shared with a cache.
 */
export type Mutation<T extends StoredRun> = (current: T | undefined) => T | undefined;

/** How many sessions' last-seen state a process keeps, to write without reading first. */
const SEEN_RUNS = 4096;

export interface StoredRunsOptions {
  /** Where this runtime's runs live: `<keyPrefix><sessionId>`. */
  keyPrefix: string;
  /** CAS attempts before giving up with StateConflictError. @default 25 */
  attempts?: number;
  /** @default Date.now */
  now?: () => number;
}

/** The runs of one runtime (the plugin loop's, the AI SDK runtime's), each under its own key prefix. */
export class StoredRuns<T extends StoredRun> {
  readonly #store: PendingStore;
  readonly #prefix: string;
  readonly #attempts: number;
  readonly #now: () => number;
  /** The entry each session had when this process last read or wrote it; a stale one only fails a swap. */
  readonly #seen = new Map<string, StateEntry<T> | null>();

  constructor(store: PendingStore, options: StoredRunsOptions) {
    const { keyPrefix, attempts = 25, now = Date.now } = options;
    this.#store = store;
    this.#prefix = keyPrefix;
    this.#attempts = attempts;
    this.#now = now;
  }

  key(sessionId: string): string {
    return `${this.#prefix}${sessionId}`;
  }

  /** The stored run, read from the store (never from the cache). */
  async get(sessionId: string): Promise<T | undefined> {
    return (await this.read(sessionId))?.value;
  }

  /**
   * Read, apply `mutate`, write if unchanged since the read; repeat on a lost race. Returns the state now
   * stored. The first try starts from what this process saw last, without a read; a decision to change
   * nothing is only taken on a fresh read.
   */
  async update(sessionId: string, mutate: Mutation<T>): Promise<T | undefined> {
    let entry = this.#seen.get(sessionId);
    let fresh = entry === undefined;
    if (fresh) entry = (await this.read(sessionId)) ?? null;
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      const next = mutate(entry?.value);
      if (next === undefined) {
        if (fresh) return entry?.value;
      } else {
        const written = await this.put(sessionId, entry ?? undefined, next);
        if (written) return written;
      }
      entry = (await this.read(sessionId)) ?? null;
      fresh = true;
    }
    throw new StateConflictError(
      `run state of session ${JSON.stringify(sessionId)} kept changing under ${this.#attempts} writes; retry later`,
    );
  }

  /** Write `next` only if the run is still `base` (undefined: no run yet); the state written, or undefined. */
  async put(sessionId: string, base: StateEntry<T> | undefined, next: T): Promise<T | undefined> {
    const written: T = { ...next, sessionId, rev: (base?.value.rev ?? 0) + 1, updatedAt: this.#now() };
    const version = await this.#store.casState(this.key(sessionId), written, { ifVersion: base ? base.version : null, sessionId });
    if (version === undefined) {
      this.#seen.delete(sessionId);
      return undefined;
    }
    this.#remember(sessionId, { value: written, version });
    return written;
  }

  /** The entry last seen by this process, or a fresh read when there is none. */
  async entry(sessionId: string): Promise<StateEntry<T> | undefined> {
    const seen = this.#seen.get(sessionId);
    return seen === undefined ? this.read(sessionId) : (seen ?? undefined);
  }

  /** A fresh read, remembered. */
  async read(sessionId: string): Promise<StateEntry<T> | undefined> {
    const entry = await this.#store.getState<T>(this.key(sessionId), { sessionId });
    this.#remember(sessionId, entry ?? null);
    return entry;
  }

  #remember(sessionId: string, entry: StateEntry<T> | null): void {
    this.#seen.delete(sessionId);
    this.#seen.set(sessionId, entry);
    if (this.#seen.size > SEEN_RUNS) this.#seen.delete(this.#seen.keys().next().value!);
  }
}
