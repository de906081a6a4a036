/**
 * The loop's one compare-and-swap shape on a store value: read, compute the next value, write it only
 * if nothing changed since the read, and on a lost race read again. Run state and the paused-run index
 * both change this way.
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

export interface SwapOptions {
  /** Attempts before giving up with StateConflictError. */
  attempts: number;
  /** What the conflict error says changed. */
  what: string;
  /** Waits before attempt `n` (from 1) after a lost race, e.g. to spread a burst of writers. */
  backoff?: (attempt: number) => Promise<void>;
}

/**
 * Applies `next` to the stored value until a swap wins. `next` returns the value to write, or
 * `{ keep }` to write nothing and return `keep` (the change is already there).
 */
export async function swapState<T, R>(
  store: PendingStore,
  key: string,
  next: (entry: StateEntry<T> | undefined) => { write: T; result: R } | { keep: R },
  { attempts, what, backoff }: SwapOptions,
): Promise<R> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await backoff?.(attempt);
    const entry = await store.getState<T>(key);
    const step = next(entry);
    if ('keep' in step) return step.keep;
    if (await store.putState(key, step.write, { ifVersion: entry ? entry.version : null })) return step.result;
  }
  throw new StateConflictError(`${what} kept changing under ${attempts} writes; retry later`);
}
