/**
 * What the client's calls take and return, and the error `fetchPending` throws. A leaf module: client.ts
 * (the public calls) and client-calls.ts (their lazily loaded bodies) both import it, and neither imports
 * the other's code back, so the lazy chunk never forms an import cycle.
 */
import type { ChatEvent } from './chat-events.js';

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
  { ok: true; response: Response; events: AsyncIterable<ChatEvent> } | { ok: false; status: number; error: ClientErrorInfo };

/** Thrown by `fetchPending`, which has no result union to carry a failure. */
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

/** The answer to one question (`selections`, `customInput`), or to a card of several (`answers`, docs/protocol.md §9.2). */
export interface ContinueRequest {
  sessionId: string;
  requestId: string;
  selections?: string[];
  customInput?: string;
  answers?: Array<{ id: string; selections: string[]; customInput: string }>;
  cancelled: boolean;
}

export interface ChatRequest {
  sessionId: string;
  message: string;
}
