/**
 * A session's run, persisted in the PendingStore next to its pending interaction (docs/protocol.md §7), so any
 * instance sharing the store — or this one after a crash — continues it from exactly where it paused.
 * Every write is a compare-and-set on the store's version; a lost race re-reads and re-applies the change.
 */
import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { PendingStore } from '../store/types.js';
import { swapState } from './state-swap.js';

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
  /** The model's history exactly as sent: system, user, assistant (with tool_calls) and tool messages. */
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
  /** Bumped on every write; a writer recognizes its own write by it. */
  rev: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

export { StateConflictError } from './state-swap.js';

/** `undefined` from a mutation means "nothing to change" (the write was already done: idempotent). */
export type Mutation = (current: RunState | undefined) => RunState | undefined;

export interface RunStatesOptions {
  /** @default 'run:' */
  keyPrefix?: string;
  /** CAS attempts before giving up with StateConflictError. @default 25 */
  attempts?: number;
  now?: () => number;
}

export class RunStates {
  readonly #store: PendingStore;
  readonly #prefix: string;
  readonly #attempts: number;
  readonly #now: () => number;

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

  async get(sessionId: string): Promise<RunState | undefined> {
    return (await this.#store.getState<RunState>(this.key(sessionId)))?.value;
  }

  /** Read, apply `mutate`, write if unchanged since the read; repeat on a lost race. Returns the state now stored. */
  update(sessionId: string, mutate: Mutation): Promise<RunState | undefined> {
    return swapState<RunState, RunState | undefined>(
      this.#store,
      this.key(sessionId),
      (entry) => {
        const next = mutate(entry ? structuredClone(entry.value) : undefined);
        if (next === undefined) return { keep: entry?.value };
        const written: RunState = { ...next, sessionId, rev: (entry?.value.rev ?? 0) + 1, updatedAt: this.#now() };
        return { write: written, result: written };
      },
      { attempts: this.#attempts, what: `run state of session ${JSON.stringify(sessionId)}` },
    );
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
