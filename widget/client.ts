/**
 * The widget's calls to the agent server (docs/protocol.md §4, §5, §7). HTTP refusals and network failures are
 * values, not exceptions, for the two streaming calls: the card must show "already answered" or "expired"
 * as a state, and a `try` around every submit would hide which failure it was. `fetch` is injectable so a
 * host can add credentials or headers, and tests can drive it with real Responses. The calls themselves
 * live in client-calls.ts, loaded on the first call: a card that is only shown never downloads them.
 */
import type { ChatEvent, PendingInteraction } from './chat-events.js';

export interface ClientOptions {
  /** Base path of the API routes, without a trailing slash. @default '/api' */
  endpoint?: string;
  /** The fetch to call; wraps auth or headers for a host. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Aborts the request and, for chat streams, the reading of the events. */
  signal?: AbortSignal;
}

export interface InteractionReceipt {
  requestId: string;
  toolCallId: string;
  status: string;
  at: string;
}

/**
 * A refused call. `code` is the contract's error code (`invalid_answer`, `already_answered`, …) when the
 * server sent one, else `network_error` (status 0), `aborted` (status 0), `http_error` (an error status with
 * no contract body) or `unexpected_response` (a 2xx that is not what the route promises).
 */
export interface ClientErrorInfo {
  code: string;
  message: string;
  field?: string;
  /** With `already_answered`: the first answer's receipt. */
  receipt?: InteractionReceipt;
}

export type ContinueResult =
  | { ok: true; response: Response; events: AsyncIterable<ChatEvent> }
  | { ok: false; status: number; error: ClientErrorInfo };

/** Thrown by {@link fetchPending}, which has no result union to carry a failure. */
export class ClientError extends Error implements ClientErrorInfo {
  override readonly name = 'ClientError';
  readonly code: string;
  readonly status: number;
  readonly field?: string;
  readonly receipt?: InteractionReceipt;

  constructor(status: number, info: ClientErrorInfo, options?: { cause?: unknown }) {
    super(info.message, options);
    this.status = status;
    this.code = info.code;
    if (info.field !== undefined) this.field = info.field;
    if (info.receipt !== undefined) this.receipt = info.receipt;
  }
}

export interface ContinueRequest {
  sessionId: string;
  requestId: string;
  selections: string[];
  customInput: string;
  cancelled: boolean;
}

export interface ChatRequest {
  sessionId: string;
  message: string;
}

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
