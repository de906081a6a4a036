/**
 * What a submission's result means for the card: whether it failed, and then a receipt (409, 410, not
 * resumable, gone) or an error with or without a retry.
 */
import type { ErrorCode, ResolvedStatus } from '../plugin/contract/schema.js';
import { fieldAt } from './answer-fields.js';
import type { FailureOutcome, SubmitFailure } from './receipt.js';

/** Exactly `RESOLVED_STATUSES` of plugin/contract/schema.ts (a zod module, so not imported at run time). */
const RESOLVED: Record<ResolvedStatus, true> = { answered: true, cancelled: true, expired: true, superseded: true };
const isResolvedStatus = (status: string | undefined): status is ResolvedStatus =>
  status !== undefined && Object.prototype.hasOwnProperty.call(RESOLVED, status);

/** Exactly `ERROR_CODES` of plugin/contract/schema.ts: the record type makes a missing or extra code a compile error. */
const CONTRACT_CODES: Record<ErrorCode, true> = {
  invalid_request: true,
  invalid_answer: true,
  forbidden: true,
  session_mismatch: true,
  not_found: true,
  already_answered: true,
  not_resumable: true,
  expired: true,
  store_unavailable: true,
  replay_expired: true,
};
const isContractCode = (code: string | undefined): code is ErrorCode =>
  code !== undefined && Object.prototype.hasOwnProperty.call(CONTRACT_CODES, code);

/** Each contract error code leads to the one thing the user can still do; unknown codes fall back on status. */
export function failureOutcome(failure: SubmitFailure): FailureOutcome {
  const status = failure.status ?? 0;
  // Client-made codes (network_error, aborted, http_error, unexpected_response) carry no contract
  // meaning: decide on the HTTP status instead.
  const code = isContractCode(failure.error?.code) ? failure.error.code : '';
  const detail = failure.error?.message || undefined;
  const at = fieldAt(failure.error?.field);

  if (code === 'already_answered') {
    const r = failure.error?.receipt;
    const first = isResolvedStatus(r?.status) ? r.status : 'answered';
    return { kind: 'receipt', receipt: { kind: first === 'answered' ? 'elsewhere' : first, at: r?.at, late: true } };
  }
  if (code === 'expired' || (!code && status === 410)) return { kind: 'receipt', receipt: { kind: 'expired' } };
  if (code === 'not_resumable') return { kind: 'receipt', receipt: { kind: 'not-resumable' } };
  if (code === 'not_found' || (!code && status === 404)) return { kind: 'receipt', receipt: { kind: 'gone' } };
  if (code === 'invalid_answer' || (!code && status === 422)) {
    const path = failure.error?.field;
    return {
      kind: 'error',
      key: 'errorInvalidAnswer',
      detail,
      retry: false,
      ...(at && { field: at.field, question: at.q }),
      ...(path?.startsWith('decisions[') && { path }),
    };
  }
  if (code === 'invalid_request' || (!code && status === 400)) return { kind: 'error', key: 'errorInvalidRequest', detail, retry: false };
  if (code === 'forbidden' || code === 'session_mismatch' || (!code && status === 403)) {
    return { kind: 'error', key: 'errorForbidden', detail, retry: false };
  }
  if (code === 'store_unavailable' || status >= 500) return { kind: 'error', key: 'errorUnavailable', detail, retry: true };
  if (status === 0) return { kind: 'error', key: 'errorNetwork', detail, retry: true };
  return { kind: 'error', key: 'errorUnknown', detail, retry: true };
}

/** A thrown `fetch`/client error as a failure: no HTTP status, so it reads as a network problem. */
export function failureFromThrown(err: unknown): SubmitFailure {
  const message = err instanceof Error ? err.message : String(err);
  return { status: 0, error: { code: 'network_error', message } };
}

/** A `{ status?, error? }` failure value, as opposed to a thrown error or anything else. */
export const isSubmitFailure = (value: unknown): value is SubmitFailure =>
  typeof value === 'object' && value !== null && !(value instanceof Error) && ('error' in value || 'status' in value);

/** What `onSubmit` resolved to, read as a failure when it is one; anything else counts as accepted. */
export async function failureOfResult(result: unknown): Promise<SubmitFailure | undefined> {
  if (result instanceof Response) {
    if (result.ok) return undefined;
    const body: unknown = await result
      .clone()
      .json()
      .catch(() => undefined);
    const error = typeof body === 'object' && body !== null && 'error' in body ? (body.error as SubmitFailure['error']) : undefined;
    return { status: result.status, error };
  }
  if (typeof result === 'object' && result !== null && 'ok' in result && result.ok === false) return result as SubmitFailure;
  return undefined;
}

/** The host's report of a failure (`showError`): a failure value as it is, anything else as thrown. */
export const asFailure = (value: unknown): SubmitFailure => (isSubmitFailure(value) ? value : failureFromThrown(value));

/** Nothing can send the answer: no provider, endpoint or onSubmit, and no listener took `ask-user-submit`. */
export const noSubmitter = (): SubmitFailure => ({
  error: {
    code: 'no_submitter',
    message:
      'Nothing can send this answer: no <ask-user-provider>, endpoint or onSubmit, and no ask-user-submit listener called preventDefault().',
  },
});

/** The answer has no session to go to. */
export const noSession = (): SubmitFailure => ({
  status: 400,
  error: {
    code: 'invalid_request',
    message: 'No sessionId: set it on the request, on the card (session-id) or on <ask-user-provider session-id>.',
  },
});
