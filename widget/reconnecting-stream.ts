/**
 * The reader behind the `events` of the client's streaming calls (docs/protocol.md §11): a chat stream that
 * outlives its connection. When the body breaks off, or ends without `done`, it opens the stream again with
 * the id of the last frame it yielded, after the server's `retry` and then backing off with jitter, at once
 * when the page comes back online or into view. Ids are `<runId>.<seq>`, so a frame of the same run at or
 * below the last seq is one already yielded and is skipped: nothing reaches the host twice.
 *
 * Only client-calls.ts imports it, so it travels in that lazily loaded chunk. It uses only names the widget
 * exports (readChatEvents, ChatStreamError), as every lazy chunk must.
 */
import type { ChatEvent } from './chat-events.js';
import type { ChatConnectionEvent, ChatEventStream, ConnectionState, ReconnectClock, StreamOptions } from './client-types.js';
import { ChatStreamError, readChatEvents } from './sse-reader.js';
import { parseFrameId, type FramePosition } from '../plugin/contract/frame-id.js';

/** A stream opened again: `pickedUp` for `GET …/chat/stream`, whose body may go on past a paused run's `done`. */
export interface Reopened {
  response: Response;
  pickedUp: boolean;
}

/** Opens the stream again after `lastEventId` (none: from the start). Rejects on a network failure. */
export type Reopen = (lastEventId: string | undefined, signal: AbortSignal) => Promise<Reopened>;

export interface ReconnectingStreamInit {
  sessionId: string;
  /** The response to read first; none for a stream that has nothing to give (204). */
  first?: Reopened;
  /** How to reconnect; none reads `first` only, as a 1.1 client did. */
  reopen?: Reopen;
  /** The frame the first response follows (resumeChat), so the same frame later is not yielded again. */
  lastEventId?: string;
  options: StreamOptions;
}

/** Where the last frame id of a session is kept between page loads. */
export const keptIdKey = (sessionId: string): string => `ask-user-kit:last-event-id:${sessionId}`;

/** The page's sessionStorage, or none where reading it throws (sandboxed frames, storage turned off). */
export function defaultStorage(): StreamOptions['storage'] {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

const PAGE_CLOCK: ReconnectClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
  random: () => Math.random(),
};

/** The wait before the first reconnect until the server says otherwise; every 1.2 stream starts with `retry: 1000`. */
const DEFAULT_RETRY_MS = 1000;
/** Cut off this long, the state turns `reconnecting`: a blip shorter than that is not worth a word. */
const QUIET_MS = 2000;

class StreamConnectionEvent extends Event implements ChatConnectionEvent {
  declare readonly type: 'connection';
  readonly state: ConnectionState;

  constructor(state: ConnectionState) {
    super('connection');
    this.state = state;
  }
}

/** How a read of one response ended: at its `done` (or an abort), or cut off before it. */
type ReadEnd = 'ended' | 'cut';

// The typed `connection` listener of ChatEventStream, on the class: EventTarget's own signature takes any Event.
export interface ReconnectingStream {
  addEventListener: ChatEventStream['addEventListener'];
  removeEventListener: ChatEventStream['removeEventListener'];
}

export class ReconnectingStream extends EventTarget implements ChatEventStream {
  private _state: ConnectionState = 'connected';
  private _lastEventId: string | undefined;
  /** The run and seq of the last frame yielded: a frame at or below it is one already handed over. */
  private _position: FramePosition | undefined;
  private _yielded = false;
  private _lastWasDone = false;
  private _retryMs = DEFAULT_RETRY_MS;
  /** Reconnects since frames last flowed; the wait doubles with each. */
  private _attempt = 0;
  /** When the stream was cut off, until it is on air again: the replay window counts from here. */
  private _cutSince: number | undefined;
  private _quietTimer: unknown;
  /** Ends the wait between two reconnects early (online, visible, stop). */
  private _wake: (() => void) | undefined;
  private readonly _stopper = new AbortController();
  private readonly _sessionId: string;
  private readonly _reopen: Reopen | undefined;
  private readonly _clock: ReconnectClock;
  private readonly _storage: StreamOptions['storage'];
  private readonly _windowMs: number;
  private readonly _maxDelayMs: number;
  private readonly _hostSignal: AbortSignal | undefined;
  private readonly _first: AsyncIterableIterator<ChatEvent> | undefined;
  private readonly _firstPickedUp: boolean;
  private _iterator: AsyncGenerator<ChatEvent, void, undefined> | undefined;

  /** @throws {ChatStreamError} when `first` is not an event stream with a body, as `readChatEvents` does. */
  constructor({ sessionId, first, reopen, lastEventId, options }: ReconnectingStreamInit) {
    super();
    this._sessionId = sessionId;
    this._reopen = options.reconnect === false ? undefined : reopen;
    this._clock = options.clock ?? PAGE_CLOCK;
    this._storage = options.storage === undefined ? defaultStorage() : options.storage;
    this._windowMs = options.replayWindowMs ?? 600_000;
    this._maxDelayMs = options.maxRetryDelayMs ?? 30_000;
    this._lastEventId = lastEventId;
    this._position = lastEventId === undefined ? undefined : parseFrameId(lastEventId);
    this._hostSignal = options.signal;
    this._hostSignal?.addEventListener('abort', this._stopOnAbort, { once: true });
    if (this._hostSignal?.aborted) this._stopper.abort(this._hostSignal.reason);
    // Read at once, so a response that is no event stream fails the call, and an abort before the first read
    // still releases the connection.
    this._first = first && this._read(first.response, first.pickedUp);
    this._firstPickedUp = first?.pickedUp ?? false;
  }

  get state(): ConnectionState {
    return this._state;
  }

  get lastEventId(): string | undefined {
    return this._lastEventId;
  }

  /** Single use, as a response body is: a second loop gets the same, finished iterator. */
  [Symbol.asyncIterator](): AsyncGenerator<ChatEvent, void, undefined> {
    this._iterator ??= this._run();
    return this._iterator;
  }

  /** The host's signal stops the reading, a wait between reconnects and a reconnect in flight alike. */
  private readonly _stopOnAbort = (): void => {
    this._stopper.abort(this._hostSignal?.reason);
    this._wake?.();
  };

  private async *_run(): AsyncGenerator<ChatEvent, void, undefined> {
    try {
      let events = this._first;
      let pickedUp = this._firstPickedUp;
      while (events) {
        if ((yield* this._frames(events, pickedUp)) === 'ended') return;
        const next = await this._reconnect();
        if (!next) return;
        ({ events, pickedUp } = next);
      }
    } finally {
      this._stop();
    }
  }

  private _read(response: Response, pickedUp: boolean): AsyncIterableIterator<ChatEvent> {
    return readChatEvents(response, { signal: this._stopper.signal, readPastDone: pickedUp, onRetry: (ms) => this._onRetry(ms) });
  }

  /** Yields the new frames of one response; says whether the stream ended or was cut off. */
  private async *_frames(events: AsyncIterableIterator<ChatEvent>, pickedUp: boolean): AsyncGenerator<ChatEvent, ReadEnd, undefined> {
    try {
      for await (const event of events) {
        this._onAir(true);
        this._lastWasDone = event.event === 'done';
        if (this._isOld(event.id)) continue;
        this._keep(event.id);
        yield event;
        // A picked-up stream may go on after a paused run's `done` (answered elsewhere); any other `done` is the end.
        if (event.event === 'done' && (!pickedUp || event.data.reason !== 'paused')) return 'ended';
      }
    } catch (cause) {
      if (this._stopper.signal.aborted || this._lastWasDone) return 'ended';
      // Only a body that broke off is worth another try: a frame too large would be too large again.
      if (!(cause instanceof ChatStreamError) || cause.code !== 'stream_failed' || !this._canReconnect()) throw cause;
      this._cutOff();
      return 'cut';
    }
    // A picked-up stream ends right after its last `done`; anything else that ends before one was cut.
    if (this._stopper.signal.aborted || this._lastWasDone || !this._canReconnect()) return 'ended';
    this._cutOff();
    return 'cut';
  }

  /**
   * With an id the stream picks up after it; with none yet only while nothing was yielded, since a stream
   * without ids (a 1.1 server) cannot say where it was and would repeat itself.
   */
  private _canReconnect(): boolean {
    return this._reopen !== undefined && (this._lastEventId !== undefined || !this._yielded);
  }

  /** Tries again until a stream answers; undefined when there is nothing more to read (204, 410, window over, stopped). */
  private async _reconnect(): Promise<{ events: AsyncIterableIterator<ChatEvent>; pickedUp: boolean } | undefined> {
    const reopen = this._reopen!;
    for (;;) {
      if (this._clock.now() - this._cutSince! >= this._windowMs) return this._gone();
      await this._wait(this._delay(this._attempt++));
      if (this._stopper.signal.aborted) return undefined;
      let reopened: Reopened;
      try {
        reopened = await reopen(this._lastEventId, this._stopper.signal);
      } catch {
        if (this._stopper.signal.aborted) return undefined;
        continue;
      }
      const { response, pickedUp } = reopened;
      if (response.ok && response.status !== 204) {
        try {
          return { events: this._read(response, pickedUp), pickedUp };
        } catch {
          // A 200 that is no event stream (a captive portal's page, a proxy's) is a network still settling.
          void response.body?.cancel().catch(() => {});
          continue;
        }
      }
      void response.body?.cancel().catch(() => {});
      if (response.status === 204) {
        // Nothing in flight and nothing missed: the server is there, the host restores from the pending card.
        this._onAir(false);
        return undefined;
      }
      if (response.status === 410) {
        this._forget();
        return this._gone();
      }
      // A server error or an overloaded proxy passes; any other refusal would refuse again.
      if (response.status >= 500 || response.status === 408 || response.status === 429) continue;
      throw new ChatStreamError('http_status', `Reconnecting to the chat stream failed with HTTP ${response.status}.`, response.status);
    }
  }

  /**
   * The wait before reconnect number `attempt`: the server's `retry` first, then doubling up to the ceiling, each
   * drawn between half and all of its step (never under `retry`) so clients cut off together come back apart.
   */
  private _delay(attempt: number): number {
    const floor = Math.min(this._retryMs, this._maxDelayMs);
    const step = Math.min(this._maxDelayMs, this._retryMs * 2 ** attempt);
    return Math.max(floor, step * (0.5 + this._clock.random() / 2));
  }

  /** Resolves after `ms`, or at once when the page goes online or becomes visible, or the stream stops. */
  private _wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const onVisible = () => {
        if (document.visibilityState === 'visible') wake();
      };
      const wake = () => {
        this._clock.clearTimeout(handle);
        globalThis.removeEventListener?.('online', wake);
        if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', onVisible);
        this._wake = undefined;
        resolve();
      };
      const handle = this._clock.setTimeout(wake, ms);
      globalThis.addEventListener?.('online', wake);
      if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisible);
      this._wake = wake;
      if (this._stopper.signal.aborted) wake();
    });
  }

  /** The body broke off: the replay window starts, and `reconnecting` is said if it lasts. */
  private _cutOff(): void {
    this._cutSince ??= this._clock.now();
    if (this._quietTimer !== undefined) return;
    this._quietTimer = this._clock.setTimeout(() => {
      this._quietTimer = undefined;
      if (this._cutSince !== undefined) this._setState('reconnecting');
    }, QUIET_MS);
  }

  /**
   * The server is heard again: a frame, or the `retry:` line that opens every stream. Only frames reset the
   * backoff, so a server that answers and drops at once is not asked again every second.
   */
  private _onAir(framed: boolean): void {
    this._cutSince = undefined;
    if (framed) this._attempt = 0;
    if (this._quietTimer !== undefined) this._clock.clearTimeout(this._quietTimer);
    this._quietTimer = undefined;
    this._setState('connected');
  }

  private _onRetry(ms: number): void {
    this._retryMs = ms;
    this._onAir(false);
  }

  private _gone(): undefined {
    this._setState('gone');
    return undefined;
  }

  private _setState(state: ConnectionState): void {
    if (this._state === state) return;
    this._state = state;
    this.dispatchEvent(new StreamConnectionEvent(state));
  }

  /** A frame of the run last seen, at or below its seq: yielded before this reconnect. */
  private _isOld(id: string | undefined): boolean {
    const at = id === undefined ? undefined : parseFrameId(id);
    return at !== undefined && at.runId === this._position?.runId && at.seq <= this._position.seq;
  }

  /** Remembers the frame about to be handed over, here and for a reload. */
  private _keep(id: string | undefined): void {
    this._yielded = true;
    if (id === undefined) return;
    this._lastEventId = id;
    this._position = parseFrameId(id) ?? this._position;
    try {
      this._storage?.setItem(keptIdKey(this._sessionId), id);
    } catch {
      // A full or refused storage costs only the pick-up after a reload.
    }
  }

  /** The kept id names frames the server dropped: a reload starts afresh instead of meeting 410 again. */
  private _forget(): void {
    try {
      this._storage?.removeItem(keptIdKey(this._sessionId));
    } catch {
      // As in _keep.
    }
  }

  private _stop(): void {
    if (this._quietTimer !== undefined) this._clock.clearTimeout(this._quietTimer);
    this._quietTimer = undefined;
    this._hostSignal?.removeEventListener('abort', this._stopOnAbort);
    this._stopper.abort();
    this._wake?.();
  }
}
