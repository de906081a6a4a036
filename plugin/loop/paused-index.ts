/**
 * The sessions whose run is paused on a question, kept in the store so a fresh process can find the runs
 * a crash left half-resolved (the store has no key listing). Small by nature: one entry per open card.
 */
import type { PendingStore } from '../store/types.js';
import { swapState } from './state-swap.js';

interface IndexValue {
  sessions: string[];
}

/** A change to the list; `undefined` when it changes nothing. Pure: a lost swap applies it again. */
type Edit = (sessions: string[]) => string[] | undefined;

export class PausedIndex {
  readonly #store: PendingStore;
  readonly #key: string;
  readonly #queue: Array<{ edit: Edit; resolve: () => void; reject: (err: unknown) => void }> = [];
  #draining = false;

  constructor(store: PendingStore, key = 'runs:paused') {
    this.#store = store;
    this.#key = key;
  }

  async list(): Promise<string[]> {
    return (await this.#store.getState<IndexValue>(this.#key))?.value.sessions ?? [];
  }

  add(sessionId: string): Promise<void> {
    return this.#enqueue((s) => (s.includes(sessionId) ? undefined : [...s, sessionId]));
  }

  remove(sessionId: string): Promise<void> {
    return this.#enqueue((s) => (s.includes(sessionId) ? s.filter((x) => x !== sessionId) : undefined));
  }

  /**
   * Every pause and resume of every session writes this one key. Changes queued while a write is in
   * flight go out together in the next write, so a burst of N pauses in one process costs a few
   * compare-and-swaps instead of N racing each other; other processes still race, and retry.
   */
  #enqueue(edit: Edit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ edit, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0);
      try {
        await this.#change((sessions) => {
          let next: string[] | undefined;
          for (const { edit } of batch) next = edit(next ?? sessions) ?? next;
          return next;
        });
        for (const { resolve } of batch) resolve();
      } catch (err) {
        for (const { reject } of batch) reject(err);
      }
    }
    this.#draining = false;
  }

  #change(edit: Edit): Promise<void> {
    return swapState<IndexValue, void>(
      this.#store,
      this.#key,
      (entry) => {
        const next = edit(entry?.value.sessions ?? []);
        return next ? { write: { sessions: next }, result: undefined } : { keep: undefined };
      },
      {
        attempts: 50,
        what: 'the paused-run index',
        // Other processes write this key too: spread the retries of a burst out.
        backoff: (attempt) => new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** (attempt - 1), 50))),
      },
    );
  }
}
