/**
 * Writing an `ask_user` ToolResult into a persisted run, and rolling forward what a crash left between
 * the store's claim and that write. Both are idempotent by tool_call_id: a second writer finds the tool
 * message present and changes nothing, so a result is never lost and never doubled.
 */
import { answerToolResultText, cancelAnswerFor, closedToolResultText } from '../contract/tool-result.js';
import type { AskUserForm } from '../contract/schema.js';
import type { InteractionRecord, PendingStore, Resolution } from '../store/types.js';
import type { PausedIndex } from './paused-index.js';
import type { Hold } from './run-lease.js';
import {
  hasToolResult,
  insertToolResult,
  unansweredToolCalls,
  type RunLease,
  type RunState,
  type RunStates,
  type StoredRun,
} from './run-state.js';

/** A resumable run of any runtime: its history in `M`, paused on a call, owing the model an answer. */
export type ResumableRun<M> = StoredRun & {
  status: 'idle' | 'running' | 'paused';
  messages: M[];
  paused?: { requestId: string; toolCallId: string };
  owed?: { toolCallId: string; since: number };
  lease?: RunLease;
  listed?: string;
};

/** What writing a ToolResult needs of a history format: the plugin loop's chat messages, the AI SDK's messages. */
export interface HistoryOps<M> {
  hasToolResult(messages: readonly M[], toolCallId: string): boolean;
  unansweredToolCalls(messages: readonly M[]): string[];
  /** The history with the ask_user result for `toolCallId` at its call's place. */
  withToolResult(messages: M[], toolCallId: string, content: string): M[];
}

/** The plugin loop's history: Chat Completions messages. */
export const chatHistory: HistoryOps<RunState['messages'][number]> = {
  hasToolResult,
  unansweredToolCalls,
  withToolResult: insertToolResult,
};

export interface WriteOutcome<R = RunState> {
  /** The run knows this tool call (its result is now in history, written by us or before). */
  known: boolean;
  /** We added the tool message (false when it was already there). */
  wrote: boolean;
  state?: R;
  /** The lease `hold` asked for was taken in the same write. */
  took: boolean;
  /** The run needs no sweep any more: the paused-run marker of this version is to be removed. */
  unlisted?: string;
}

/** The ToolResult content a resolution stands for (docs/protocol.md §4). */
export function contentForResolution(resolution: Resolution, form: AskUserForm): string {
  switch (resolution.status) {
    case 'answered':
      return answerToolResultText(resolution.answer);
    case 'cancelled':
      return answerToolResultText(cancelAnswerFor(form));
    default:
      return closedToolResultText(resolution.status, form.questions !== undefined);
  }
}

/**
 * Append the ToolResult and unpause the run if it was paused on this call. With `hold`, the same write
 * takes the session's lease when nobody holds it, so a continue saves the answer and starts its run in
 * one write.
 */
export async function writeToolResult<M = RunState['messages'][number], R extends ResumableRun<M> = RunState & ResumableRun<M>>(
  states: RunStates<R>,
  record: InteractionRecord,
  content: string,
  hold?: Hold,
  ops: HistoryOps<M> = chatHistory as unknown as HistoryOps<M>,
): Promise<WriteOutcome<R>> {
  const { sessionId, toolCallId } = record;
  let known = false;
  let wrote = false;
  let unlisted: string | undefined;
  const state = await states.update(sessionId, (cur) => {
    known = false;
    wrote = false;
    unlisted = undefined;
    if (!cur) return undefined;
    const pausedHere = cur.paused?.toolCallId === toolCallId;
    // An answer leaves the model owed a call; a cancel or a close does not.
    // `since` is when the answer was accepted, also when a roll-forward writes it much later.
    const { resolution } = record;
    const owes = resolution?.status === 'answered';
    const unpause = (s: R): R => {
      if (!pausedHere) return s;
      // Owing the model nothing, the run needs no sweep: its marker goes (by the version it was listed with).
      if (!owes) unlisted = s.listed;
      return {
        ...s,
        status: 'idle',
        paused: undefined,
        ...(owes ? { owed: { toolCallId, since: resolution.at } } : { listed: undefined }),
        ...(hold && !s.lease ? { lease: hold.lease } : {}),
      };
    };
    if (ops.hasToolResult(cur.messages, toolCallId)) {
      known = true;
      return pausedHere ? unpause(cur) : undefined;
    }
    if (!ops.unansweredToolCalls(cur.messages).includes(toolCallId)) return undefined;
    known = true;
    wrote = true;
    return unpause({ ...cur, messages: ops.withToolResult(cur.messages, toolCallId, content) });
  });
  const took = hold !== undefined && state?.lease?.owner === hold.lease.owner;
  return { known, wrote, ...(state ? { state } : {}), took, ...(unlisted ? { unlisted } : {}) };
}

/** True when the run's history ends with the tool results of a turn that includes `toolCallId`, all answered. */
export function awaitsModelAfter(state: RunState | undefined, toolCallId: string): boolean {
  if (!state || state.status === 'paused') return false;
  const msgs = state.messages;
  if (msgs.at(-1)?.role !== 'tool' || unansweredToolCalls(msgs).length > 0) return false;
  for (let i = msgs.length - 1; i >= 0 && msgs[i]!.role === 'tool'; i--) {
    if ((msgs[i] as { tool_call_id: string }).tool_call_id === toolCallId) return true;
  }
  return false;
}

export type RollForwardResult =
  | { kind: 'nothing' }
  | { kind: 'pending'; record: InteractionRecord }
  | { kind: 'needs_expiry'; record: InteractionRecord }
  /** Closed as expired by the coordinator (its `closed` hook wrote the ToolResult). */
  | { kind: 'expired'; record: InteractionRecord }
  | { kind: 'rolled_forward'; record?: InteractionRecord; toolCallId: string; content: string; wrote: boolean };

export interface RollForwardDeps<R = RunState> {
  store: PendingStore;
  states: RunStates<R & StoredRun>;
  index: PausedIndex;
}

/**
 * If the session's run is paused on an interaction that is no longer pending (resolved by a claim whose
 * ToolResult write never happened, or gone past retention), write the ToolResult it stands for and
 * unpause the run. A live pending interaction is left alone; an overdue uncollected one is reported as
 * `needs_expiry`, since closing it is the coordinator's job (it claims and audits).
 */
export async function rollForwardRun<M = RunState['messages'][number], R extends ResumableRun<M> = RunState & ResumableRun<M>>(
  deps: RollForwardDeps<R>,
  sessionId: string,
  ops: HistoryOps<M> = chatHistory as unknown as HistoryOps<M>,
): Promise<RollForwardResult> {
  const { store, states, index } = deps;
  const state = await states.get(sessionId);
  // A run stalled on an answer stays listed until a sweep has continued it.
  if (!state || state.status !== 'paused' || !state.paused) return { kind: 'nothing' };
  const { requestId, toolCallId } = state.paused;
  const record = await store.get(requestId);
  if (record?.status === 'pending') return { kind: 'pending', record };
  if (record && !record.resolution) return { kind: 'needs_expiry', record };
  // A record past retention leaves no answer to honour: close the call as expired so history stays valid.
  const content = record?.resolution ? contentForResolution(record.resolution, record.form) : closedToolResultText('expired');
  const out = await writeToolResult<M, R>(
    states as RunStates<R>,
    record ?? placeholder(sessionId, toolCallId, requestId),
    content,
    undefined,
    ops,
  );
  if (record) await store.markToolResultWritten(requestId);
  if (out.unlisted) await index.remove(sessionId, out.unlisted);
  return { kind: 'rolled_forward', record, toolCallId, content, wrote: out.wrote };
}

const placeholder = (sessionId: string, toolCallId: string, requestId: string): InteractionRecord => ({
  requestId,
  toolCallId,
  sessionId,
  form: { title: '', mode: 'text' },
  createdAt: 0,
  expiresAt: 0,
  status: 'expired',
});
