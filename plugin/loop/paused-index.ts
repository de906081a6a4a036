/**
 * The sessions whose run is paused on a question, kept in the store so a fresh process can find the runs
 * a crash left half-resolved (the store has no key listing). Small by nature: one entry per open card.
 */
import type { PendingStore } from '../store/types.js';
import { StateConflictError } from './run-state.js';

interface IndexValue {
  sessions: string[];
}

export class PausedIndex {
  readonly #store: PendingStore;
  readonly #key: string;

  constructor(store: PendingStore, key = 'runs:paused') {
    this.#store = store;
    this.#key = key;
  }

  async list(): Promise<string[]> {
    return (await this.#store.getState<IndexValue>(this.#key))?.value.sessions ?? [];
  }

  add(sessionId: string): Promise<void> {
    return this.#change((s) => (s.includes(sessionId) ? undefined : [...s, sessionId]));
  }

  remove(sessionId: string): Promise<void> {
    return this.#change((s) => (s.includes(sessionId) ? s.filter((x) => x !== sessionId) : undefined));
  }

  async #change(edit: (sessions: string[]) => string[] | undefined): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.#store.getState<IndexValue>(this.#key);
      const next = edit(entry?.value.sessions ?? []);
      if (!next) return;
      if (await this.#store.putState(this.#key, { sessions: next }, { ifVersion: entry ? entry.version : null })) return;
      // Every pause of every session writes this one key: spread the retries of a burst out.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
    }
    throw new StateConflictError('the paused-run index kept changing under 50 writes; retry later');
  }
}
