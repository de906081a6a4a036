/**
 * The contract's error body (docs/protocol.md §4) as one error class, so a route can `throw` where it
 * notices a problem and one place turns it into `{ error: { code, message, field?, receipt? } }`.
 */
import type { ErrorBody, ErrorCode, ResolvedStatus } from '../contract/schema.js';

/** HTTP status of each contract error code. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  invalid_answer: 422,
  forbidden: 403,
  session_mismatch: 403,
  not_found: 404,
  already_answered: 409,
  not_resumable: 409,
  expired: 410,
  store_unavailable: 503,
  replay_expired: 410,
};

export interface Receipt {
  requestId: string;
  toolCallId: string;
  status: ResolvedStatus;
  /** ISO 8601. */
  at: string;
}

export interface AskUserErrorOptions {
  /** Overrides the code's usual status, e.g. 413 or 415 for `invalid_request`. */
  status?: number;
  /** The body field the problem is in, e.g. `selections`. */
  field?: string;
  receipt?: Receipt;
  cause?: unknown;
}

/** A client-visible failure of a plugin route. The message never quotes the user's free text. */
export class AskUserError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly receipt?: Receipt;
  /** Koa reads `expose` to decide whether a message may reach the client. */
  readonly expose = true;

  constructor(code: ErrorCode, message: string, options: AskUserErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AskUserError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    if (options.field !== undefined) this.field = options.field;
    if (options.receipt !== undefined) this.receipt = options.receipt;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    if (this.receipt !== undefined) error.receipt = this.receipt;
    return { error };
  }
}

export const isAskUserError = (err: unknown): err is AskUserError => err instanceof AskUserError;
