/**
 * A session's AI SDK run, persisted in the PendingStore under its own prefix (`aisdk:<sessionId>`), so
 * any instance sharing the store continues it exactly where it paused. The history is the AI SDK's
 * `ModelMessage[]` as sent to `streamText`. Every write is a compare-and-set on the store's version, and
 * the session lease (plugin/loop/run-lease.ts) lives in the same value, as in the plugin's own loop.
 */
import type { ModelMessage } from 'ai';
import type { RunLease } from '../loop/run-state.js';
import { StateConflictError } from '../loop/run-state.js';
import type { Hold } from '../loop/run-lease.js';
import type { PendingStore, StateEntry } from '../store/types.js';

export type AiRunStatus = 'idle' | 'running' | 'paused';

export interface AiRunState {
  sessionId: string;
  status: AiRunStatus;
  /** User, assistant and tool messages exactly as the AI SDK takes them; instructions stay outside. */
  messages: ModelMessage[];
  /** Set while paused: the ask_user call waiting for its ToolResult. */
  paused?: { requestId: string; toolCallId: string; step: number };
  /** Model steps used in the current turn; a resumed pause counts on. */
  step: number;
  /** An accepted answer whose ToolResult is written but the model has not yet run with (see RunState.owed). */
  owed?: { toolCallId: string; since: number };
  lease?: RunLease;
  /** Version of the session's paused-run marker while the run is listed for sweeps. */
  listed?: string;
  rev: number;
  updatedAt: number;
}

/** `undefined` means "nothing to change"; a mutation never changes its argument (it may be cached). */
export type AiMutation = (current: AiRunState | undefined) => AiRunState | undefined;

const SEEN_RUNS = 4096;
const ATTEMPTS = 25;

export class AiRunStates {
  readonly #store: PendingStore;
  readonly #prefix: string;
  /** What this process last read or wrote per session, so a write needs no read first. */
  readonly #seen = new Map<string, StateEntry<AiRunState> | null>();

  constructor(store: PendingStore, keyPrefix = 'aisdk:') {
    this.#store = store;
    this.#prefix = keyPrefix;
  }

  async get(sessionId: string): Promise<AiRunState | undefined> {
    return (await this.read(sessionId))?.value;
  }

  /** Apply `mutate` and write if nothing changed since; a lost race re-reads. "No change" is decided on a fresh read only. */
  async update(sessionId: string, mutate: AiMutation): Promise<AiRunState | undefined> {
    let entry = this.#seen.get(sessionId);
    let fresh = entry === undefined;
    if (fresh) entry = (await this.read(sessionId)) ?? null;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
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
    throw new StateConflictError(`run state of session ${JSON.stringify(sessionId)} kept changing under ${ATTEMPTS} writes; retry later`);
  }

  /** Write `next` only if the run is still `base`; the state written, or undefined on a lost race. */
  async put(sessionId: string, base: StateEntry<AiRunState> | undefined, next: AiRunState): Promise<AiRunState | undefined> {
    const written: AiRunState = { ...next, sessionId, rev: (base?.value.rev ?? 0) + 1, updatedAt: Date.now() };
    const version = await this.#store.casState(this.#prefix + sessionId, written, { ifVersion: base ? base.version : null });
    if (version === undefined) {
      this.#seen.delete(sessionId);
      return undefined;
    }
    this.#remember(sessionId, { value: written, version });
    return written;
  }

  async entry(sessionId: string): Promise<StateEntry<AiRunState> | undefined> {
    const seen = this.#seen.get(sessionId);
    return seen === undefined ? this.read(sessionId) : (seen ?? undefined);
  }

  async read(sessionId: string): Promise<StateEntry<AiRunState> | undefined> {
    const entry = await this.#store.getState<AiRunState>(this.#prefix + sessionId);
    this.#remember(sessionId, entry ?? null);
    return entry;
  }

  #remember(sessionId: string, entry: StateEntry<AiRunState> | null): void {
    this.#seen.delete(sessionId);
    this.#seen.set(sessionId, entry);
    if (this.#seen.size > SEEN_RUNS) this.#seen.delete(this.#seen.keys().next().value!);
  }
}

export const emptyAiRun = (sessionId: string): AiRunState => ({ sessionId, status: 'idle', messages: [], step: 0, rev: 0, updatedAt: 0 });

/** The run if `hold` still owns it; otherwise the hold is marked lost and LeaseLostError thrown. */
export function heldBy(hold: Hold, current: AiRunState | undefined): AiRunState {
  // Hold.check only reads the lease; called with nothing, it records the loss and throws.
  if (!current || current.lease?.owner !== hold.lease.owner) hold.check(undefined);
  return current!;
}
