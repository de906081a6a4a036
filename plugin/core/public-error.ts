/**
 * What a client may see of an error thrown on a host's route: the contract's JSON error body, never a
 * stack trace, a file path or a framework's HTML error page. Each adapter's error helper (`koaErrors`,
 * `expressErrors`, `honoErrors`) answers with this; only unexpected errors are logged.
 */
import { AskUserError } from './errors.js';

export interface PublicError {
  status: number;
  body: { error: { code: string; message: string; field?: string } };
  /** True for a failure of the server (5xx): the host's log should have it, the client only a fixed line. */
  unexpected: boolean;
}

/** A client error (4xx) a framework or the host raised: its status kept, its words replaced by fixed ones. */
const clientCode = (status: number) => (status === 401 || status === 403 ? 'forbidden' : status === 404 ? 'not_found' : 'invalid_request');

export function publicError(err: unknown): PublicError {
  if (err instanceof AskUserError) return { status: err.status, body: err.toBody(), unexpected: false };
  const status = (err as { status?: unknown; statusCode?: unknown } | null)?.status ?? (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Body parsers' messages can quote the body they failed on: only the status says what happened.
    return {
      status,
      body: { error: { code: clientCode(status), message: `The request was refused (HTTP ${status}).` } },
      unexpected: false,
    };
  }
  return { status: 500, body: { error: { code: 'internal_error', message: 'The server failed; see its log.' } }, unexpected: true };
}
