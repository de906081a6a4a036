/** How a run reports a failure on its stream: one `error` event, then `done { reason: "error" }`. */
import { format } from 'node:util';
import type { SseSink } from '../core/host.js';

/**
 * Codes a run's stream carries from the engine and its turn runners (the loop's, the AI SDK's), beside the
 * store's `store_unavailable`:
 * `session_busy` (another runner holds the session), `not_resumable`, `model_error`, `model_timeout`
 * (the endpoint went quiet), `empty_reply` (neither text nor a tool call), `max_rounds`, `state_conflict`,
 * `internal_error`.
 */
export type LoopErrorCode =
  | 'session_busy'
  | 'not_resumable'
  | 'model_error'
  | 'model_timeout'
  | 'empty_reply'
  | 'max_rounds'
  | 'state_conflict'
  | 'internal_error'
  | (string & {});

export function sendFailure(sse: SseSink, code: LoopErrorCode, message: string): void {
  sse.send('error', { code, message });
  sse.send('done', { reason: 'error' });
}

/** Errors whose message the loop wrote itself from ids the caller already holds: safe to show. */
const OWN_MESSAGES = new Set(['session_busy', 'state_conflict']);

/**
 * What the browser may read about `err`. An upstream or internal message can carry a URL, a stack detail
 * or part of an API key (some endpoints echo the key they refused), so only the code, the HTTP status and
 * a fixed sentence leave the server; the full error goes to `log`.
 */
export function publicFailure(err: unknown): { code: LoopErrorCode; message: string } {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && OWN_MESSAGES.has(code)) return { code, message: (err as Error).message };
  if (code === 'store_unavailable') return { code, message: 'The interaction store is unreachable; retry shortly.' };
  if (code === 'model_error') {
    const status = (err as { status?: unknown }).status;
    const http = typeof status === 'number' ? ` (HTTP ${status})` : '';
    return { code, message: `The model call failed${http}; send your message again, or ask the operator to check the server log.` };
  }
  if (code === 'model_timeout')
    return { code, message: 'The model stopped sending before its reply was complete; send your message again.' };
  if (code === 'empty_reply') return { code, message: 'The model sent an empty reply; nothing was stored, send your message again.' };
  return {
    code: 'internal_error',
    message: 'The run failed on the server; send your message again, or ask the operator to check the server log.',
  };
}

/** Report `err` on the stream in public words and hand the full error to `log`. */
export function reportFailure(sse: SseSink, err: unknown, log: (err: unknown) => void): void {
  const failure = publicFailure(err);
  if (!OWN_MESSAGES.has(failure.code)) log(err);
  sendFailure(sse, failure.code, failure.message);
}

const SECRET = /\b(sk|pk|rk)-[A-Za-z0-9_-]{6,}|\bBearer\s+[A-Za-z0-9._~+/=-]{6,}/g;

/** An error's text for a server log with API-key-like tokens masked. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET, (m) => `${m.slice(0, 3)}…[redacted]`);
}

type LogFn = (message: string, ...rest: unknown[]) => void;

/**
 * A logger for the `openai` client (`new OpenAI({ logger: maskedLogger() })`) that masks API-key-like
 * tokens in everything the SDK logs, as the loop's own error log does: the SDK may log upstream text.
 */
export function maskedLogger(
  target: Pick<Console, 'error' | 'warn' | 'info' | 'debug'> = console,
): Record<'error' | 'warn' | 'info' | 'debug', LogFn> {
  const masked =
    (write: (line: string) => void): LogFn =>
    (...args) =>
      write(redactSecrets(format(...args)));
  return {
    error: masked((line) => target.error(line)),
    warn: masked((line) => target.warn(line)),
    info: masked((line) => target.info(line)),
    debug: masked((line) => target.debug(line)),
  };
}
