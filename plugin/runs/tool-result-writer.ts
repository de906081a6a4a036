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
import type { ResumableRun, RunFormat } from './run-format.js';
import type { StoredRuns } from './stored-runs.js';

export interface WriteOutcome<R> {
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
export async function writeToolResult<M, R extends ResumableRun<M>>(
  format: RunFormat<M, R>,
  states: StoredRuns<R>,
  record: InteractionRecord,
  content: string,
  hold?: Hold,
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
    if (format.hasToolResult(cur.messages, toolCallId)) {
      known = true;
      return pausedHere ? unpause(cur) : undefined;
    }
    if (!format.unansweredToolCalls(cur.messages).includes(toolCallId)) return undefined;
    known = true;
    wrote = true;
    return unpause({ ...cur, messages: format.withToolResult(cur.messages, toolCallId, content) });
  });
  const took = hold !== undefined && state?.lease?.owner === hold.lease.owner;
  return { known, wrote, ...(state ? { state } : {}), took, ...(unlisted ? { unlisted } : {}) };
}

export type RollForwardResult =
  | { kind: 'nothing' }
  | { kind: 'pending'; record: InteractionRecord }
  | { kind: 'needs_expiry'; record: InteractionRecord }
  /** Closed as expired by the coordinator (its `closed` hook wrote the ToolResult). */
  | { kind: 'expired'; record: InteractionRecord }
  | { kind: 'rolled_forward'; record?: InteractionRecord; toolCallId: string; content: string; wrote: boolean };

export interface RollForwardDeps<M, R extends ResumableRun<M>> {
  store: PendingStore;
  states: StoredRuns<R>;
  index: PausedIndex;
  format: RunFormat<M, R>;
}

/**
 * If the session's run is paused on an interaction that is no longer pending (resolved by a claim whose
 * ToolResult write never happened, or gone past retention), write the ToolResult it stands for and
 * unpause the run. A live pending interaction is left alone; an overdue uncollected one is reported as
 * `needs_expiry`, since closing it is the coordinator's job (it claims and audits).
 */
export async function rollForwardRun<M, R extends ResumableRun<M>>(
  deps: RollForwardDeps<M, R>,
  sessionId: string,
): Promise<RollForwardResult> {
  const { store, states, index, format } = deps;
  const state = await states.get(sessionId);
  // A run stalled on an answer stays listed until a sweep has continued it.
  if (!state || state.status !== 'paused' || !state.paused) return { kind: 'nothing' };
  const { requestId, toolCallId } = state.paused;
  const record = await store.get(requestId);
  if (record?.status === 'pending') return { kind: 'pending', record };
  if (record && !record.resolution) return { kind: 'needs_expiry', record };
  // A record past retention leaves no answer to honour: close the call as expired so history stays valid.
  const content = record?.resolution ? contentForResolution(record.resolution, record.form) : closedToolResultText('expired');
  const out = await writeToolResult(format, states, record ?? placeholder(sessionId, toolCallId, requestId), content);
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
