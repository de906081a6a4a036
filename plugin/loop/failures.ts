/** How a run reports a failure on its stream: one `error` event, then `done { reason: "error" }`. */
import type { SseSink } from '../host.js';

/**
 * Codes the loop itself emits, beside the store's `store_unavailable`:
 * `session_busy` (another runner holds the session), `not_resumable`, `model_error`, `max_rounds`,
 * `state_conflict`, `internal_error`.
 */
export type LoopErrorCode = 'session_busy' | 'not_resumable' | 'model_error' | 'max_rounds' | 'state_conflict' | 'internal_error' | (string & {});

export function sendFailure(sse: SseSink, code: LoopErrorCode, message: string): void {
  sse.send('error', { code, message });
  sse.send('done', { reason: 'error' });
}
