/** The chat stream's wire format (docs/protocol.md §3), shared by the Node and the web-stream writers. */
import type { ChatEventMap, ChatEventName } from '../contract/schema.js';
import type { IdentifiedFrame, SseSink } from './host.js';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

export interface SseTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface OpenSseOptions {
  /** Interval of the `: ping` comment that keeps proxies from closing an idle stream; 0 turns it off. @default 15000 */
  heartbeatMs?: number;
  /** Timer functions, so tests can watch the heartbeat start and stop. @default the global timers */
  timers?: SseTimers;
}

export const defaultTimers: SseTimers = {
  setInterval: (fn, ms) => {
    const handle = setInterval(fn, ms);
    // The heartbeat alone must not keep a process alive that is otherwise done.
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** Field values must not contain CR or LF, or one event would be read as two (WHATWG SSE §9.2.6). */
const oneLine = (s: string) => s.replace(/\r\n|\r|\n/g, ' ');

/** `event:` + `data:` frame. JSON.stringify escapes CR and LF inside strings, so data stays one line. */
export function formatEvent(event: string, data: unknown): string {
  return `event: ${oneLine(event)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A frame of a run (contract §11): its `id:`, then the event and its data, already JSON text. */
export function formatFrame({ id, event, data }: IdentifiedFrame): string {
  return `id: ${oneLine(id)}\nevent: ${oneLine(event)}\ndata: ${oneLine(data)}\n\n`;
}

/** How long a client waits before it reconnects (contract §11), sent first on every stream. */
export const RETRY_MS = 1000;
const RETRY_LINE = `retry: ${RETRY_MS}\n\n`;

export function formatComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

/** One abort reason for every closed stream: a DOMException per stream is a stack trace per request. */
export const STREAM_CLOSED = new DOMException('the chat stream closed', 'AbortError');

/**
 * An SseSink over `out`, a transport that takes text chunks and can end. Frames sent in one tick
 * (interaction_resolved, tool_result, done…) leave as one chunk; writes after the client left, or after
 * `end()`, are dropped; sending `done` (the last event of every stream) ends the stream. Frames still
 * waiting when the stream ends are handed to `out.end(last)`, so a stream answered within one tick is
 * one write and its end, not a write and then an end.
 */
export function frameSink(
  out: { write(chunk: string): void; end(last?: string): void; readonly open: boolean },
  options: OpenSseOptions = {},
): SseSink & { stop(): void } {
  const { heartbeatMs = 15_000, timers = defaultTimers } = options;
  // The run's signal is made when someone asks for it: an AbortController, and the abort event it
  // dispatches when the stream ends, cost more than the frames of a short answer. A signal asked for
  // after the stream stopped is already aborted, with the same reason.
  let controller: AbortController | undefined;
  let stopped = false;
  let heartbeat: unknown;
  let ended = false;
  // Every stream begins with the reconnect delay (§11); it leaves with the first frames.
  let pending = RETRY_LINE;
  const flush = () => {
    const chunk = pending;
    pending = '';
    if (chunk && out.open) out.write(chunk);
  };
  const write = (chunk: string) => {
    if (ended || stopped || !out.open) return;
    if (pending === '') process.nextTick(flush);
    pending += chunk;
  };
  const stop = () => {
    if (heartbeat !== undefined) timers.clearInterval(heartbeat);
    heartbeat = undefined;
    if (stopped) return;
    stopped = true;
    controller?.abort(STREAM_CLOSED);
  };
  process.nextTick(flush);
  if (heartbeatMs > 0) heartbeat = timers.setInterval(() => write(formatComment('ping')), heartbeatMs);
  const sink = {
    send<E extends ChatEventName>(event: E, data: ChatEventMap[E]) {
      write(formatEvent(event, data));
      if (event === 'done') sink.end();
    },
    // A logged frame does not end the stream, even a `done`: a follower reads on past a paused run's
    // `done` while the run goes on (§11); whoever sends the run's last frame ends the stream.
    sendFrame(frame: IdentifiedFrame) {
      write(formatFrame(frame));
    },
    comment(text: string) {
      write(formatComment(text));
    },
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (stopped) controller.abort(STREAM_CLOSED);
      }
      return controller.signal;
    },
    get closed() {
      return ended || stopped;
    },
    end() {
      if (ended) return;
      ended = true;
      const last = pending;
      pending = '';
      stop();
      if (!out.open) return;
      if (last) out.end(last);
      else out.end();
    },
    /** The client left: stop writing and abort the run's signal. */
    stop,
  };
  return sink;
}
