/**
 * What the client's calls take and return, and the error `fetchPending` throws. A leaf module: client.ts
 * (the public calls) and client-calls.ts (their lazily loaded bodies) both import it, and neither imports
 * the other's code back, so the lazy chunk never forms an import cycle.
 */
import type { ApprovalDecision } from '../plugin/contract/approval.js';
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

/**
 * The state of a chat stream's connection (docs/protocol.md §11): `connected` while frames flow,
 * `reconnecting` once it has been cut off for 2 s, `gone` when the server no longer keeps what was missed
 * (410) or the reconnects failed for `replayWindowMs`; the host then reloads the session's view.
 */
export type ConnectionState = 'connected' | 'reconnecting' | 'gone';

/** `connection`, fired by a {@link ChatEventStream} when its state changes. */
export interface ChatConnectionEvent extends Event {
  readonly type: 'connection';
  readonly state: ConnectionState;
}

/**
 * The events of a chat stream that reconnects by itself (docs/protocol.md §11): iterate it once, as any
 * async iterable. A frame is yielded once, also across reconnects; the iteration ends after `done`, when
 * the server has nothing more (204), when the stream is `gone`, or when the signal aborts. A stream picked up
 * through `GET …/chat/stream` reads on past a `done` of reason `paused` while its body goes on: the run was
 * answered elsewhere and its continuation follows.
 */
export interface ChatEventStream extends AsyncIterable<ChatEvent>, EventTarget {
  /** The connection's state now. */
  readonly state: ConnectionState;
  /** The id of the last frame yielded (`<runId>.<seq>`), where a reconnect picks up. */
  readonly lastEventId: string | undefined;
  addEventListener(
    type: 'connection',
    listener: (this: ChatEventStream, event: ChatConnectionEvent) => void,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
  removeEventListener(
    type: 'connection',
    listener: (this: ChatEventStream, event: ChatConnectionEvent) => void,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void;
}

export type ContinueResult =
  { ok: true; response: Response; events: ChatEventStream } | { ok: false; status: number; error: ClientErrorInfo };

/** Time and chance as a reconnecting stream uses them; a test passes its own to run the waits at will. */
export interface ReconnectClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A number in [0, 1), for the jitter of the waits. */
  random(): number;
}

/** Options of the calls that stream (`startChat`, `submitUserInput`, `resumeChat`). */
export interface StreamOptions extends ClientOptions {
  /** Reconnect after a cut (docs/protocol.md §11); `false` reads the one response, as a 1.1 client did. @default true */
  reconnect?: boolean;
  /** How long reconnects may fail before the stream is `gone`: the server's replay window. @default 600000 */
  replayWindowMs?: number;
  /** The longest wait between two reconnects. @default 30000 */
  maxRetryDelayMs?: number;
  /** Where the last frame id is kept per session, for `resumeChat` after a reload; `null` keeps none. @default sessionStorage */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  /** Timers, clock and jitter. @default the page's */
  clock?: ReconnectClock;
}

/** Options of `submitUserInput`. */
export interface SubmitOptions extends StreamOptions {
  /**
   * The `Idempotency-Key` of this answer (1–64 visible ASCII characters). By default a random key per answer,
   * the same each time the same answer is sent again, so a retry after a lost response is answered as the
   * first was instead of 409.
   */
  idempotencyKey?: string;
}

/** Options of `resumeChat`. */
export interface ResumeOptions extends StreamOptions {
  /**
   * Pick up after this frame id. By default the last id kept for the session (see `storage`); `null` asks for
   * the frames of the run in flight from its first.
   */
  lastEventId?: string | null;
}

/** What `stopChat` answers: whether a run was running or a card open to stop. */
export interface StopResult {
  stopped: boolean;
}

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

/** The answer to one question (`selections`, `customInput`), a card of several (`answers`, docs/protocol.md §9.2) or an approval card (`decisions`, §12). */
export interface ContinueRequest {
  sessionId: string;
  requestId: string;
  selections?: string[];
  customInput?: string;
  answers?: Array<{ id: string; selections: string[]; customInput: string }>;
  /** An approval card's decisions (§12), one per call in the card's order; `[]` with a cancel. */
  decisions?: ApprovalDecision[];
  cancelled: boolean;
}

export interface ChatRequest {
  sessionId: string;
  message: string;
}
