/**
 * Writing a closed card's outcome into a persisted run, and rolling forward what a crash left between the
 * store's claim and that write. A question's outcome is its one `ask_user` ToolResult; an approval card's
 * (§12) is a result per denied call, the approved calls queued to run, edited arguments and "always"
 * tools, all in the same write. Both are idempotent by tool_call_id: a second writer finds the card's
 * first call settled and changes nothing, so a result is never lost and never doubled.
 */
import { deniedResultText, type ApprovalDecision, type ApprovalRequest, type DenyReason } from '../contract/approval.js';
import { answerToolResultText, cancelAnswerFor, closedToolResultText } from '../contract/tool-result.js';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import type { AskUserForm } from '../contract/schema.js';
import type { InteractionRecord, PendingStore, Resolution } from '../store/types.js';
import type { PausedIndex } from './paused-index.js';
import type { Hold } from './run-lease.js';
import type { ApprovedCall, CallResult, ResumableRun, RunFormat } from './run-format.js';
import type { StoredRuns } from './stored-runs.js';

/** What closing a card writes into its run. */
export interface Settlement {
  /** Results that go into the history now, in the card's order. */
  results: CallResult[];
  /** Approved calls, queued to run before the model's next call. */
  approved: ApprovedCall[];
  /** Arguments the user edited, written into the model's calls so the history says what ran. */
  edits: Array<{ toolCallId: string; arguments: Record<string, unknown> }>;
  /** Tools approved for the rest of the session. */
  always: string[];
}

/** A question's settlement: its one ask_user result. */
export const askSettlement = (toolCallId: string, content: string): Settlement => ({
  results: [{ toolCallId, name: ASK_USER_TOOL_NAME, content, isError: false }],
  approved: [],
  edits: [],
  always: [],
});

/** An approval card's settlement (§12): the user's decisions, or every call denied with the closing's reason. */
export function approvalSettlement(approvals: readonly ApprovalRequest[], outcome: readonly ApprovalDecision[] | DenyReason): Settlement {
  const out: Settlement = { results: [], approved: [], edits: [], always: [] };
  approvals.forEach((call, i) => {
    const d = typeof outcome === 'string' ? undefined : outcome[i];
    if (!d || d.decision === 'deny') {
      const reason = typeof outcome === 'string' ? outcome : (d?.reason ?? '');
      out.results.push({ toolCallId: call.toolCallId, name: call.tool, content: deniedResultText(reason), isError: false });
      return;
    }
    out.approved.push({ toolCallId: call.toolCallId, tool: call.tool });
    if (d.arguments) out.edits.push({ toolCallId: call.toolCallId, arguments: d.arguments });
    if (d.always && !out.always.includes(call.tool)) out.always.push(call.tool);
  });
  return out;
}

/** What a closed card stands for in its run: a resolution of `record` (answered, cancelled, expired, superseded). */
export function settlementOf(record: InteractionRecord, resolution: Pick<Resolution, 'status' | 'answer'>): Settlement {
  const { approvals } = record.form;
  if (!approvals) return askSettlement(record.toolCallId, contentForResolution(resolution, record.form));
  const { status, answer } = resolution;
  if (status === 'answered' && !answer.cancelled) return approvalSettlement(approvals, answer.decisions ?? []);
  return approvalSettlement(approvals, status === 'expired' || status === 'superseded' ? status : 'cancelled');
}

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
export function contentForResolution(resolution: Pick<Resolution, 'status' | 'answer'>, form: AskUserForm): string {
  switch (resolution.status) {
    case 'answered':
      return answerToolResultText(resolution.answer);
    case 'cancelled':
      return answerToolResultText(cancelAnswerFor(form));
    default:
      return closedToolResultText(resolution.status, form.questions !== undefined);
  }
}

/** Append a question's ToolResult and unpause the run; see `writeSettlement`. */
export function writeToolResult<M, R extends ResumableRun<M>>(
  format: RunFormat<M, R>,
  states: StoredRuns<R>,
  record: InteractionRecord,
  content: string,
  hold?: Hold,
): Promise<WriteOutcome<R>> {
  return writeSettlement(format, states, record, askSettlement(record.toolCallId, content), hold);
}

/**
 * Write a closed card's settlement and unpause the run if it was paused on this card. With `hold`, the
 * same write takes the session's lease when nobody holds it, so a continue saves the answer and starts
 * its run in one write.
 */
export async function writeSettlement<M, R extends ResumableRun<M>>(
  format: RunFormat<M, R>,
  states: StoredRuns<R>,
  record: InteractionRecord,
  settlement: Settlement,
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
    const owes = resolution?.status === 'answered' && !resolution.answer.cancelled;
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
    // The card's first call settled means all of it was: one write holds the whole settlement.
    if (format.hasToolResult(cur.messages, toolCallId) || cur.approved?.some((a) => a.toolCallId === toolCallId)) {
      known = true;
      return pausedHere ? unpause(cur) : undefined;
    }
    if (!format.unansweredToolCalls(cur.messages).includes(toolCallId)) return undefined;
    known = true;
    wrote = true;
    let messages = cur.messages;
    for (const edit of settlement.edits) messages = format.withCallArguments(messages, edit.toolCallId, edit.arguments);
    for (const r of settlement.results) messages = format.withToolResult(messages, r.toolCallId, r.content, r);
    const next: R = { ...cur, messages };
    if (settlement.approved.length > 0) next.approved = [...(cur.approved ?? []), ...settlement.approved];
    const always = settlement.always.filter((t) => !cur.alwaysAllowed?.includes(t));
    if (always.length > 0) next.alwaysAllowed = [...(cur.alwaysAllowed ?? []), ...always];
    return unpause(next);
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
  | {
      kind: 'rolled_forward';
      record?: InteractionRecord;
      /** The card's first call and its result, when it has one now (an approved call's comes when it runs). */
      toolCallId: string;
      content: string;
      /** Every result written (an approval card's denied calls). */
      results: CallResult[];
      wrote: boolean;
    };

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
  const settlement = record?.resolution
    ? settlementOf(record, record.resolution)
    : askSettlement(toolCallId, closedToolResultText('expired'));
  const out = await writeSettlement(format, states, record ?? placeholder(sessionId, toolCallId, requestId), settlement);
  if (record) await store.markToolResultWritten(requestId);
  if (out.unlisted) await index.remove(sessionId, out.unlisted);
  const first = settlement.results.find((r) => r.toolCallId === toolCallId);
  return { kind: 'rolled_forward', record, toolCallId, content: first?.content ?? '', results: settlement.results, wrote: out.wrote };
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
