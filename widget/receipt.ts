/**
 * What a closed card says, and how a failed submission maps onto it (docs/protocol.md §4 outcomes). Pure: the
 * card renders these, tests check them directly.
 */
import type { Answer, DoneReason, InteractionResolved, ResolvedStatus } from '../plugin/contract/schema.js';
import { remainingMs, type AnswerField } from './answer-fields.js';
import { isRecord } from './chat-events.js';
import type { AskUserRequest } from './read-answer.js';
import type { AskUserStrings } from './strings.js';
import type { ApprovalDecision } from '../plugin/contract/approval.js';

export type ReceiptKind = ResolvedStatus | 'elsewhere' | 'gone' | 'not-resumable';

/**
 * A question already closed, as a host redraws it (`<ask-user-card>`'s `receipt`, e.g. a chat's history
 * after a reload): what became of it, when, what was answered, and how the run it continued ended.
 */
export interface AskUserReceipt {
  kind: ResolvedStatus;
  /** ISO time the interaction was closed, when known. */
  at?: string;
  /** The ids chosen and text typed (an id not among the request's options shows as itself). */
  selections?: readonly string[];
  customInput?: string;
  /** A card of several questions (§9.2): each question's ids and text (the text unknown when another tab answered). */
  answers?: ReadonlyArray<{ id: string; selections: readonly string[]; customInput?: string; customInputLength?: number }>;
  /** An approval card (§12): the decision on each call, in the card's order. */
  decisions?: ReadonlyArray<ApprovalDecision>;
  /** How the run this answer continued ended (`markRunEnded`); unset while it runs. */
  runEnded?: DoneReason;
}

/** A read-only end state of the card: a closed question's, or one only a live card reaches. */
export interface Receipt extends Omit<AskUserReceipt, 'kind'> {
  kind: ReceiptKind;
  /** `interaction_resolved` reports only the free text's length, never the text. */
  customInputLength?: number;
  /**
   * This card's answer reached a question that was already closed (409): it was not used, and the receipt
   * shows the first resolution instead. Dropped by the card when its own earlier attempt may have landed.
   */
  late?: true;
}

/** The error half of a continue result (`{ ok: false, status, error }`), as the client returns it. */
export interface SubmitFailure {
  status?: number;
  error?: {
    code?: string;
    message?: string;
    field?: string;
    receipt?: { requestId?: string; toolCallId?: string; status?: string; at?: string };
  };
}

export type FailureOutcome =
  | { kind: 'receipt'; receipt: Receipt }
  | {
      kind: 'error';
      key: keyof AskUserStrings;
      detail?: string;
      retry: boolean;
      field?: AnswerField;
      question?: number;
      /** The field of an approval card's decision the server's 422 named (`decisions[1].arguments.branch`, §12). */
      path?: string;
    };

/** The receipt for this card's own accepted submission. */
export function receiptForAnswer(answer: Answer, at: string): Receipt {
  return answer.cancelled
    ? { kind: 'cancelled', at }
    : answer.decisions
      ? { kind: 'answered', at, decisions: answer.decisions.map((d) => ({ ...d })) }
      : answer.answers
        ? { kind: 'answered', at, answers: answer.answers.map((a) => ({ ...a, selections: [...a.selections] })) }
        : { kind: 'answered', at, selections: [...answer.selections], customInput: answer.customInput };
}

/**
 * The receipt of an `interaction_resolved` event. It reports only the length of typed text, so the text
 * and the choices are this card's own (`sent`) when the answer that won was this card's.
 */
export function receiptForResolved(
  { status, at, selections, customInputLength, answers }: Pick<InteractionResolved, 'status'> & Partial<InteractionResolved>,
  sent: Answer | undefined,
): Receipt {
  const mine = sent && !sent.cancelled && status === 'answered' ? sent : undefined;
  if (mine?.decisions) return { kind: status, at, decisions: mine.decisions };
  if (answers || mine?.answers) return { kind: status, at, answers: mine?.answers ?? answers };
  return { kind: status, at, selections: selections ?? mine?.selections, customInput: mine?.customInput, customInputLength };
}

/**
 * The receipt of a request that is over before it is answered: expired (by its status, or its deadline
 * while nothing is in flight) or not resumable after a restart. `undefined` while it can still be answered.
 */
export function receiptIfOver(req: AskUserRequest, now: number, submitting: boolean): Receipt | undefined {
  const left = remainingMs(req.expiresAt, now);
  if (req.status === 'expired' || (left !== null && left <= 0 && !submitting)) return { kind: 'expired', at: req.expiresAt };
  return req.resumable === false ? { kind: 'not-resumable' } : undefined;
}

/** Labels of the chosen ids, in the order given; an id no longer among the options is shown as itself. */
export function selectionLabels(request: Pick<AskUserRequest, 'options'>, selections: readonly string[]): string[] {
  const byId = new Map((request.options ?? []).map((o) => [o.id, o.label] as const));
  return selections.map((id) => byId.get(id) ?? id);
}

const TITLE_KEYS: Readonly<Record<ReceiptKind, keyof AskUserStrings>> = {
  answered: 'receiptAnswered',
  cancelled: 'receiptCancelled',
  expired: 'receiptExpired',
  superseded: 'receiptSuperseded',
  elsewhere: 'receiptAnsweredElsewhere',
  gone: 'receiptGone',
  'not-resumable': 'notResumable',
};

export const receiptTitleKey = (kind: ReceiptKind): keyof AskUserStrings => TITLE_KEYS[kind];

/** The note of an answered receipt once its run ended, per `done` reason. */
export const RUN_NOTES: Readonly<Record<DoneReason, keyof AskUserStrings>> = {
  completed: 'runCompleted',
  paused: 'runPaused',
  cancelled: 'runCancelled',
  error: 'runError',
};

/** What happens next, under a receipt's status. */
export function receiptNoteKey({ kind, runEnded }: Receipt): keyof AskUserStrings | undefined {
  if (kind === 'answered') return runEnded ? RUN_NOTES[runEnded] : 'continuing';
  return kind === 'cancelled' ? 'cancelledAction' : kind === 'expired' ? 'expiredAction' : undefined;
}

/** The kinds a host may set; the record keeps them equal to the contract's. */
const CLOSED: Readonly<Record<ResolvedStatus, true>> = { answered: true, cancelled: true, expired: true, superseded: true };

const texts = (v: unknown): readonly string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * A host's `receipt` as the card may draw it, or `undefined` for one of no known `kind`. Only known keys are
 * copied, and a field of the wrong type counts as absent, so a bad field cannot break the render.
 */
export function normalizeReceipt(raw: AskUserReceipt): AskUserReceipt | undefined {
  const r: unknown = raw;
  if (!isRecord(r) || CLOSED[r.kind as ResolvedStatus] !== true) return undefined;
  return {
    kind: r.kind as ResolvedStatus,
    at: text(r.at),
    selections: texts(r.selections),
    customInput: text(r.customInput),
    answers: Array.isArray(r.answers)
      ? (r.answers.filter((a) => isRecord(a) && texts(a.selections)) as AskUserReceipt['answers'])
      : undefined,
    decisions: Array.isArray(r.decisions)
      ? (r.decisions.filter((d) => isRecord(d) && (d.decision === 'approve' || d.decision === 'deny')) as AskUserReceipt['decisions'])
      : undefined,
    runEnded: typeof RUN_NOTES[r.runEnded as DoneReason] === 'string' ? (r.runEnded as DoneReason) : undefined,
  };
}
