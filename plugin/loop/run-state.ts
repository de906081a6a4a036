/**
 * The plugin loop's run as it is stored (`run:<sessionId>`, plugin/runs/stored-runs.ts): its history in
 * Chat Completions messages, and where in it a ToolResult goes. The engine (plugin/runs/run-engine.ts)
 * reads and writes it through the loop's run format (chat-history.ts).
 */
import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { PendingStore } from '../store/types.js';
import type { RunLease } from '../runs/run-lease.js';
import type { ApprovedCall } from '../runs/run-format.js';
import { StoredRuns, type StoredRunsOptions } from '../runs/stored-runs.js';

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
  /** Rounds used so far in the current turn (resumes count on from here): the engine's call count. */
  round: number;
  /**
   * Set when an answer's ToolResult is written and the model has not yet been run with it; cleared when a
   * run saves its outcome (any outcome). Still set on an idle run means its runner died in between: a
   * sweep continues it. A run that ended in an error clears it, so a failing model is not retried forever.
   */
  owed?: { toolCallId: string; /** When the answer was accepted (its claim), epoch ms. */ since: number };
  /** The runner working on the session now (plugin/runs/run-lease.ts); absent while nobody runs it. */
  lease?: RunLease;
  /** The version of the session's paused-run marker (plugin/runs/paused-index.ts) while the run is listed for sweeps. */
  listed?: string;
  /** The run's stream (contract §11): its id and the last frame's seq. */
  stream?: { runId: string; seq: number };
  /** Calls the user approved on a card (§12) that have not run yet; they run before the model's next call. */
  approved?: ApprovedCall[];
  /** Tools the user approved for the rest of the session ("always", §12). */
  alwaysAllowed?: string[];
  /** Bumped on every write; a writer recognizes its own write by it. */
  rev: number;
  /** Epoch milliseconds. */
  updatedAt: number;
}

/** The loop's runs, under `run:` unless told otherwise. */
export class RunStates extends StoredRuns<RunState> {
  constructor(store: PendingStore, options: Partial<StoredRunsOptions> = {}) {
    super(store, { keyPrefix: 'run:', ...options });
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
  return insertToolMessage(messages, { role: 'tool', tool_call_id: toolCallId, content });
}

/** `insertToolResult` for a tool message of its own (one with content parts, say). */
export function insertToolMessage(
  messages: ChatCompletionMessageParam[],
  tool: ChatCompletionToolMessageParam,
): ChatCompletionMessageParam[] {
  const toolCallId = tool.tool_call_id;
  if (hasToolResult(messages, toolCallId)) return messages;
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

/** The history with the arguments of call `toolCallId` replaced (an approval card's edit, §12); unchanged when absent. */
export function withCallArguments(
  messages: ChatCompletionMessageParam[],
  toolCallId: string,
  args: Record<string, unknown>,
): ChatCompletionMessageParam[] {
  return messages.map((m) =>
    m.role === 'assistant' && m.tool_calls?.some((c) => c.id === toolCallId)
      ? {
          ...m,
          tool_calls: m.tool_calls.map((c) =>
            c.id === toolCallId && c.type === 'function' ? { ...c, function: { ...c.function, arguments: JSON.stringify(args) } } : c,
          ),
        }
      : m,
  );
}

/** The raw arguments of call `toolCallId` as the history holds them (an edit of the user's included). */
export function callArgumentsOf(messages: readonly ChatCompletionMessageParam[], toolCallId: string): string | undefined {
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    const call = m.tool_calls?.find((c) => c.id === toolCallId);
    if (call?.type === 'function') return call.function.arguments;
  }
  return undefined;
}
