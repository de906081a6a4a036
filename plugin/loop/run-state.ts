/**
 * A session's run, persisted in the PendingStore next to its pending interaction (docs/protocol.md §7), so any
 * instance sharing the store — or this one after a crash — continues it from exactly where it paused.
 * Every write is a compare-and-set on the store's version; a lost race re-reads and re-applies the change.
 * The session lease lives in the same value (run-lease.ts), so taking it, saving a step and letting it go
 * are the same writes as the run's own.
 */
import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { PendingStore, StateEntry } from '../store/types.js';

export type RunStatus = 'idle' | 'running' | 'paused';

export interface PausedOn {
  requestId: string;
  toolCallId: string;
  /** The model round (1-based, counted from the user message) whose assistant turn asked. */
  round: number;
}

export interface RunState {
  sessionId: string;
  status: RunStatus;
  /**
   * The model's history exactly as sent: system, user, assistant (with tool_calls) and tool messages. On the
   * Responses API an assistant message may also hold its turn's `reasoningItems` and a tool message its
   * `contentParts` (history-extras.ts); Chat Completions gets the messages without them.
   */
  messages: ChatCompletionMessageParam[];
  /** Set while `status` is `paused`: the ask_user call waiting for its ToolResult. */
  paused?: PausedOn;
  /** Rounds used so far in the current turn (resumes count on from here). */
  round: number;
  /**
   * Set when an answer's ToolResult is written and the model has not yet been run with it; cleared when a
   * run saves its outcome (any outcome). Still set on an idle run means its runner died in between: a
   * sweep continues it. A run that ended in an error clears it, so a failing model is not retried forever.
   */
  owed?: { toolCallId: string; /** When the answer was accepted (its claim), epoch ms. */ since: number };
  /** The runner working on the session now (run-lease.ts); absent while nobody runs it. */
  lease?: RunLease;
  /** The version of the session's paused-run marker (paused-index.ts) while the run is listed for sweeps. */
  listed?: string;
  /** Bumped on every write; a writer recognizes its own write by it. */
  rev: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

export interface RunLease {
  /** This run's holder: one per chat, continue or sweep. */
  owner: string;
  /** The process holding it, whose heartbeat keeps the lease alive past `until`. */
  instance: string;
  /** Epoch ms until which the lease holds without looking at the heartbeat. */
  until: number;
}

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
  rev: number;
  updatedAt: number;
}

/**
 * `undefined` from a mutation means "nothing to change" (the write was already done: idempotent). A
 * mutation returns a new value and never changes its argument, which may be shared with a cache.
 */
export type Mutation<T extends StoredRun = RunState> = (current: T | undefined) => T | undefined;

/** How many sessions' last-seen state a process keeps, to write without reading first. */
const SEEN_RUNS = 4096;

export interface RunStatesOptions {
  /** @default 'run:' */
  keyPrefix?: string;
  /** CAS attempts before giving up with StateConflictError. @default 25 */
  attempts?: number;
  now?: () => number;
}

/** Runs of any runtime (the plugin loop's, the AI SDK adapter's), each under its own key prefix. */
export class RunStates<T extends StoredRun = RunState> {
  readonly #store: PendingStore;
  readonly #prefix: string;
  readonly #attempts: number;
  readonly #now: () => number;
  /** The entry each session had when this process last read or wrote it; a stale one only fails a swap. */
  readonly #seen = new Map<string, StateEntry<T> | null>();

  constructor(store: PendingStore, options: RunStatesOptions = {}) {
    const { keyPrefix = 'run:', attempts = 25, now = Date.now } = options;
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
    const version = await this.#store.casState(this.key(sessionId), written, { ifVersion: base ? base.version : null });
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
    const entry = await this.#store.getState<T>(this.key(sessionId));
    this.#remember(sessionId, entry ?? null);
    return entry;
  }

  #remember(sessionId: string, entry: StateEntry<T> | null): void {
    this.#seen.delete(sessionId);
    this.#seen.set(sessionId, entry);
    if (this.#seen.size > SEEN_RUNS) this.#seen.delete(this.#seen.keys().next().value!);
  }
}

export const emptyRun = (sessionId: string, system?: string): RunState => ({
  sessionId,
  status: 'idle',
  messages: system ? [{ role: 'system', content: system }] : [],
  round: 0,
  rev: 0,
  updatedAt: 0,
});

/** True when `messages` already hold a tool message answering `toolCallId`. */
export const hasToolResult = (messages: readonly ChatCompletionMessageParam[], toolCallId: string) =>
  messages.some((m) => m.role === 'tool' && m.tool_call_id === toolCallId);

/**
 * Insert the tool message for `toolCallId` among the tool messages that follow its assistant message, at
 * the position of the call in `tool_calls`, so the history reads in call order. Idempotent by tool_call_id.
 */
export function insertToolResult(
  messages: ChatCompletionMessageParam[],
  toolCallId: string,
  content: string,
): ChatCompletionMessageParam[] {
  if (hasToolResult(messages, toolCallId)) return messages;
  const tool: ChatCompletionToolMessageParam = { role: 'tool', tool_call_id: toolCallId, content };
  const at = messages.findIndex((m) => m.role === 'assistant' && m.tool_calls?.some((c) => c.id === toolCallId));
  if (at < 0) return [...messages, tool];
  const assistant = messages[at] as { tool_calls: Array<{ id: string }> };
  const order = new Map(assistant.tool_calls.map((c, i) => [c.id, i]));
  const mine = order.get(toolCallId)!;
  let insertAt = at + 1;
  while (insertAt < messages.length) {
    const m = messages[insertAt]!;
    if (m.role !== 'tool' || (order.get(m.tool_call_id) ?? -1) > mine) break;
    insertAt++;
  }
  return [...messages.slice(0, insertAt), tool, ...messages.slice(insertAt)];
}

/** Tool call ids of assistant messages that have no tool message yet (a valid history has none). */
export function unansweredToolCalls(messages: readonly ChatCompletionMessageParam[]): string[] {
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
  return messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [])).filter((id) => !answered.has(id));
}
