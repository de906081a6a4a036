/**
 * The sessions whose run needs a sweep (paused on a question, or owing the model an answer), so a fresh
 * process can find what a crash left half-done. One marker per session (`paused:<sessionId>`), written
 * when the run pauses and deleted by the version the run state remembers (`RunState.listed`) once the run
 * has gone on: a pause and a resume each cost one write, whatever the number of open questions, and a
 * delete never removes a newer marker. Sweeps walk the markers in pages.
 */
import type { PendingStore, StateEntry } from '../store/types.js';

export interface Marker {
  requestId: string;
}

/** A listed session as a page of the index gives it. */
export interface Listed {
  sessionId: string;
  marker: Marker;
  version: string;
}

/** Where releases before markers kept one list of every paused session. */
const LEGACY_KEY = 'runs:paused';

export class PausedIndex {
  readonly #store: PendingStore;
  readonly #prefix: string;

  constructor(store: PendingStore, keyPrefix = 'paused:') {
    this.#store = store;
    this.#prefix = keyPrefix;
  }

  key(sessionId: string): string {
    return `${this.#prefix}${sessionId}`;
  }

  /** List the session; the marker's version, for the run state to remember. */
  async add(sessionId: string, marker: Marker): Promise<string | undefined> {
    return this.#store.casState(this.key(sessionId), marker, { sessionId });
  }

  /** Unlist the session if its marker is still the one written with `version`. */
  async remove(sessionId: string, version: string): Promise<void> {
    await this.#store.deleteState(this.key(sessionId), version, { sessionId });
  }

  async marker(sessionId: string): Promise<StateEntry<Marker> | undefined> {
    return this.#store.getState<Marker>(this.key(sessionId), { sessionId });
  }

  /** Every listed session at once (diagnostics and tests; a sweep reads pages). */
  async list(): Promise<string[]> {
    const all: string[] = [];
    for await (const page of this.pages(500)) all.push(...page.map((l) => l.sessionId));
    return all;
  }

  /** Every listed session with its marker, a page at a time. */
  async *pages(limit: number): AsyncGenerator<Listed[]> {
    await this.#migrateLegacy();
    let cursor: string | undefined;
    do {
      const page = await this.#store.listState<Marker>(this.#prefix, { ...(cursor ? { cursor } : {}), limit });
      yield page.entries.map(({ key, value, version }) => ({ sessionId: key.slice(this.#prefix.length), marker: value, version }));
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /** A store written by an older release lists its paused sessions in one value: turn them into markers once. */
  async #migrateLegacy(): Promise<void> {
    const legacy = await this.#store.getState<{ sessions: string[] }>(LEGACY_KEY);
    if (!legacy) return;
    for (const sessionId of legacy.value.sessions) {
      await this.#store.putState(this.key(sessionId), { requestId: '' } satisfies Marker, { sessionId });
    }
    await this.#store.deleteState(LEGACY_KEY, legacy.version);
  }
}
