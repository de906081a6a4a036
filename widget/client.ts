/**
 * The widget's calls to the agent server (docs/protocol.md §4, §5, §7). HTTP refusals and network failures are
 * values, not exceptions, for the two streaming calls: the card must show "already answered" or "expired"
 * as a state, and a `try` around every submit would hide which failure it was. `fetch` is injectable so a
 * host can add credentials or headers, and tests can drive it with real Responses. The calls themselves
 * live in client-calls.ts, loaded on the first call: a card that is only shown never downloads them.
 */
import type { PendingInteraction } from './chat-events.js';
import type { ChatRequest, ClientOptions, ContinueRequest, ContinueResult } from './client-types.js';

export { ClientError } from './client-types.js';
export type { ChatRequest, ClientErrorInfo, ClientOptions, ContinueRequest, ContinueResult, InteractionReceipt } from './client-types.js';

/** Sends the user's answer; on 200 the continued run streams back as `events`. */
export async function submitUserInput(body: ContinueRequest, options: ClientOptions = {}): Promise<ContinueResult> {
  return (await import('./client-calls.js')).postChatStream('/chat/continue', body, options);
}

/** Starts a chat turn (`POST {endpoint}/chat`); the run streams back as `events`. */
export async function startChat(body: ChatRequest, options: ClientOptions = {}): Promise<ContinueResult> {
  return (await import('./client-calls.js')).postChatStream('/chat', body, options);
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
