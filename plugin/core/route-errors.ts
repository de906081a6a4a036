/** The routes' refusals in the contract's words, and what their audit lines may say. */
import type { ContinueProblem } from '../contract/answer-rules.js';
import type { Answer } from '../contract/schema.js';
import { recordEntry, type AuditEntry, type AuditLogger } from './audit.js';
import { AskUserError, type Receipt } from './errors.js';
import { StoreUnavailableError, type InteractionRecord } from '../store/types.js';

export const iso = (ms: number) => new Date(ms).toISOString();

export function receiptOf(record: InteractionRecord): Receipt {
  const status = record.resolution?.status ?? (record.status === 'pending' ? 'expired' : record.status);
  return { requestId: record.requestId, toolCallId: record.toolCallId, status, at: iso(record.resolution?.at ?? record.expiresAt) };
}

export const isStoreDown = (err: unknown) =>
  err instanceof StoreUnavailableError || (err as { code?: unknown } | null)?.code === 'store_unavailable';

/** A `.catch` that turns anything the store threw that means "unreachable" into the contract's 503, saying `message`. */
const storeDownAs =
  (message: string) =>
  (err: unknown): never => {
    if (isStoreDown(err)) throw new AskUserError('store_unavailable', message, { cause: err });
    throw err;
  };

/** The store is unreachable before anything was written. */
export const storeError = storeDownAs('The interaction store is unreachable; nothing was consumed, retry shortly.');

/**
 * The store failed during the claim: it may have written it before it stopped answering (a reply lost, a
 * replica that did not confirm in time), so this 503 does not say nothing was consumed. A retry learns which.
 */
export const claimUnconfirmed = storeDownAs(
  'The interaction store did not confirm the answer, which may or may not be recorded; retry with the same Idempotency-Key: a recorded answer gets its stream (or its receipt, 409, without the key).',
);

/**
 * The rules' messages for these two quote the offending selection; a selection is client input that
 * may be anything, and error messages (which reach logs) never repeat input.
 */
export function safeAnswerMessage(problem: ContinueProblem, message: string): string {
  if (problem === 'unknown_option') return 'A selection is not an option id of this question; send ids from `options[].id`.';
  if (problem === 'duplicate_selection') return 'An option id is selected more than once; send each id once.';
  return message;
}

/** What a `rejected` audit entry says about the request, beyond event, time and reason. */
export type AuditContext = Omit<AuditEntry, 'event' | 'at' | 'reason'>;

/** The `rejected` line of a refused request: its code as the reason, its message (never user input) as detail. */
export function auditRefusal(audit: AuditLogger, now: () => number, err: AskUserError, context: AuditContext = {}): void {
  audit.audit({ event: 'rejected', at: iso(now()), ...context, reason: err.code, detail: err.message });
}

export function auditContext(record: InteractionRecord, sessionId: string, answer: Answer): AuditContext {
  const { event: _event, at: _at, ...rest } = recordEntry('rejected', record, 0, { sessionId, answer });
  return rest;
}

export const expiredError = () => new AskUserError('expired', 'This question expired before it was answered; ask again in a new message.');

const CLOSED_MESSAGES: Record<string, string> = {
  answered: 'This question was already answered.',
  cancelled: 'This question was already cancelled.',
  superseded: 'This question was replaced by a newer message and can no longer be answered.',
};

/** 409 with the first resolution's receipt, or 410 when what closed it was the expiry. */
export function closedError(record: InteractionRecord): AskUserError {
  const receipt = receiptOf(record);
  if (receipt.status === 'expired') return expiredError();
  return new AskUserError('already_answered', CLOSED_MESSAGES[receipt.status] ?? 'This question is already closed.', { receipt });
}
