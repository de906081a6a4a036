/**
 * The widget's calls to the agent server (docs/protocol.md §4, §5, §7, §11). HTTP refusals and network failures are
 * values, not exceptions, for the streaming calls: the card must show "already answered" or "expired"
 * as a state, and a `try` around every submit would hide which failure it was. `fetch` is injectable so a
 * host can add credentials or headers, and tests can drive it with real Responses. The calls themselves
 * live in client-calls.ts, loaded on the first call: a card that is only shown never downloads them, nor
 * the reconnecting reader behind their streams.
 */
import type { PendingInteraction } from './chat-events.js';
import type {
  ChatRequest,
  ClientOptions,
  ContinueRequest,
  ContinueResult,
  ResumeOptions,
  StopResult,
  StreamOptions,
  SubmitOptions,
} from './client-types.js';

export { ClientError } from './client-types.js';
export type {
  ChatConnectionEvent,
  ChatEventStream,
  ChatRequest,
  ClientErrorInfo,
  ClientOptions,
  ConnectionState,
  ContinueRequest,
  ContinueResult,
  InteractionReceipt,
  ReconnectClock,
  ResumeOptions,
  StopResult,
  StreamOptions,
  SubmitOptions,
} from './client-types.js';

/**
 * Sends the user's answer; on 200 the continued run streams back as `events`. The request carries an
 * `Idempotency-Key`, the same each time this answer is sent again, so a retry after a lost response is
 * answered as the first was.
 */
export async function submitUserInput(body: ContinueRequest, options: SubmitOptions = {}): Promise<ContinueResult> {
  return (await import('./client-calls.js')).postAnswer(body, options);
}

/** Starts a chat turn (`POST {endpoint}/chat`); the run streams back as `events`. */
export async function startChat(body: ChatRequest, options: StreamOptions = {}): Promise<ContinueResult> {
  return (await import('./client-calls.js')).postChat(body, options);
}

/**
 * Picks up the session's stream (`GET {endpoint}/chat/stream`), e.g. after a page reload: the frames after
 * the last id kept for the session (or `options.lastEventId`), then the live ones. `{ ok: true }` with a 204
 * `response` and no events when nothing is in flight (restore the card from `fetchPending`); 410
 * `replay_expired` when the server no longer keeps what was missed (reload the session's view).
 */
export async function resumeChat(sessionId: string, options: ResumeOptions = {}): Promise<ContinueResult> {
  return (await import('./client-calls.js')).getStream(sessionId, options);
}

/**
 * The stop button (`POST {endpoint}/chat/stop`): ends the session's run as cancelled, closing its open card.
 * `{ stopped: false }` when nothing was running or open.
 * @throws {ClientError} as `fetchPending` does.
 */
export async function stopChat(sessionId: string, options: ClientOptions = {}): Promise<StopResult> {
  return (await import('./client-calls.js')).postStop(sessionId, options);
}

/**
 * The session's open (or recently expired) interaction, for restoring a card after a page reload;
 * `null` when there is none.
 * @throws {ClientError} with the server's error code, or `network_error`, `aborted`, `http_error`,
 *   `unexpected_response`.
 */
export async function fetchPending(sessionId: string, options: ClientOptions = {}): Promise<PendingInteraction | null> {
  return (await import('./client-calls.js')).getPending(sessionId, options);
}
