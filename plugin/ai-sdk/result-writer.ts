/**
 * Writing an ask_user ToolResult into a persisted AI SDK run, and rolling forward what a crash left
 * between the store's claim and that write (the plugin loop's tool-result-writer.ts, for ModelMessage
 * histories). Idempotent by toolCallId: a result is never lost and never doubled.
 */
import { closedToolResultText } from '../contract/tool-result.js';
import type { Hold } from '../loop/run-lease.js';
import type { PausedIndex } from '../loop/paused-index.js';
import { contentForResolution } from '../loop/tool-result-writer.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';
import type { AiRunState, AiRunStates } from './ai-run-state.js';
import { askUserResultPart, hasToolResult, insertToolResult, unansweredToolCalls } from './history.js';

export interface AiWriteOutcome {
  /** The run knows this call: its result is in the history now, written by us or before. */
  known: boolean;
  wrote: boolean;
  state?: AiRunState;
  /** `hold` took the session's lease in the same write. */
  took: boolean;
  /** The paused-run marker of this version is to be removed: the run needs no sweep any more. */
  unlisted?: string;
}

/** Append the ToolResult and unpause the run; with `hold`, take a free lease in the same write. */
export async function writeAskResult(
  states: AiRunStates,
  record: InteractionRecord,
  content: string,
  hold?: Hold,
): Promise<AiWriteOutcome> {
  const { sessionId, toolCallId, resolution } = record;
  let known = false;
  let wrote = false;
  let unlisted: string | undefined;
  const state = await states.update(sessionId, (cur) => {
    known = wrote = false;
    unlisted = undefined;
    if (!cur) return undefined;
    const pausedHere = cur.paused?.toolCallId === toolCallId;
    // Only an answer leaves the model owed a call; `since` is when it was accepted, even when rolled forward late.
    const owes = resolution?.status === 'answered';
    const unpause = (s: AiRunState): AiRunState => {
      if (!pausedHere) return s;
      if (!owes) unlisted = s.listed;
      return {
        ...s,
        status: 'idle',
        paused: undefined,
        ...(owes ? { owed: { toolCallId, since: resolution.at } } : { listed: undefined }),
        ...(hold && !s.lease ? { lease: hold.lease } : {}),
      };
    };
    if (hasToolResult(cur.messages, toolCallId)) {
      known = true;
      return pausedHere ? unpause(cur) : undefined;
    }
    if (!unansweredToolCalls(cur.messages).includes(toolCallId)) return undefined;
    known = wrote = true;
    return unpause({ ...cur, messages: insertToolResult(cur.messages, askUserResultPart(toolCallId, content)) });
  });
  const took = hold !== undefined && state?.lease?.owner === hold.lease.owner;
  return { known, wrote, state, took, ...(unlisted ? { unlisted } : {}) };
}

export type AiRollForward =
  | { kind: 'nothing' }
  | { kind: 'pending'; record: InteractionRecord }
  | { kind: 'needs_expiry'; record: InteractionRecord }
  | { kind: 'expired'; record: InteractionRecord }
  | { kind: 'rolled_forward'; record?: InteractionRecord; toolCallId: string; content: string; wrote: boolean };

/**
 * A run paused on a question that is no longer pending (claimed, but its ToolResult never written; or
 * gone past retention) gets the ToolResult its resolution stands for. An overdue uncollected question
 * is `needs_expiry`: closing it is the coordinator's job.
 */
export async function rollForwardAiRun(
  deps: { store: PendingStore; states: AiRunStates; index: PausedIndex },
  sessionId: string,
): Promise<AiRollForward> {
  const { store, states, index } = deps;
  const state = await states.get(sessionId);
  if (!state || state.status !== 'paused' || !state.paused) return { kind: 'nothing' };
  const { requestId, toolCallId } = state.paused;
  const record = await store.get(requestId);
  if (record?.status === 'pending') return { kind: 'pending', record };
  if (record && !record.resolution) return { kind: 'needs_expiry', record };
  // Past retention nothing is left to honour: close the call as expired so the history stays valid.
  const content = record?.resolution ? contentForResolution(record.resolution, record.form) : closedToolResultText('expired');
  const target: InteractionRecord = record ?? {
    requestId,
    toolCallId,
    sessionId,
    form: { title: '', mode: 'text' },
    createdAt: 0,
    expiresAt: 0,
    status: 'expired',
  };
  const out = await writeAskResult(states, target, content);
  if (record) await store.markToolResultWritten(requestId);
  if (out.unlisted) await index.remove(sessionId, out.unlisted);
  return { kind: 'rolled_forward', record, toolCallId, content, wrote: out.wrote };
}
