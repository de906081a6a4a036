/**
 * The chat stream writer (docs/protocol.md §3). It takes the response over from Koa (`ctx.respond = false`)
 * and writes to the socket itself, so no body-wrapping middleware (compression, ETag, body loggers) can
 * buffer or gzip the stream, and every event reaches the client when it is written.
 */
import type { ParameterizedContext } from 'koa';
import type { SseSink } from './host.js';
import type { ChatEventMap, ChatEventName } from './contract/schema.js';

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
  /** Interval of the `: ping` comment that keeps proxies from closing an idle stream. @default 15000 */
  heartbeatMs?: number;
  /** HTTP status of the stream. @default 200 */
  status?: number;
  /** Timer functions, so tests can watch the heartbeat start and stop. @default the global timers */
  timers?: SseTimers;
}

const defaultTimers: SseTimers = {
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

export function formatComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

/**
 * Start a chat stream on `ctx`. Writes after the client left, or after `end()`, are dropped silently;
 * sending `done` (the last event of every stream) ends the stream.
 */
/** One abort reason for every closed stream: a DOMException per stream is a stack trace per request. */
const STREAM_CLOSED = new DOMException('the chat stream closed', 'AbortError');

export function openSse(ctx: ParameterizedContext, options: OpenSseOptions = {}): SseSink {
  const { heartbeatMs = 15_000, status = 200, timers = defaultTimers } = options;
  const { req, res } = ctx;
  const controller = new AbortController();
  let heartbeat: unknown;
  let ended = false;

  // Compression middleware checks this flag; with `respond = false` there is no body to wrap anyway.
  (ctx as { compress?: boolean }).compress = false;
  ctx.respond = false;
  ctx.status = status;

  const stop = () => {
    if (heartbeat !== undefined) timers.clearInterval(heartbeat);
    heartbeat = undefined;
    if (!controller.signal.aborted) controller.abort(STREAM_CLOSED);
  };
  // A reset peer surfaces as 'error' (EPIPE, ECONNRESET); the stream is over, there is nothing to report.
  res.on('error', stop);
  res.on('close', stop);

  const writable = () => !ended && !controller.signal.aborted && !res.writableEnded && !res.destroyed;
  // Frames sent in one tick (interaction_resolved, tool_result, done…) leave as one chunk: one chunked-
  // encoding frame and one string copy instead of one per event. Nothing waits longer than the tick.
  let pending = '';
  const flush = () => {
    const chunk = pending;
    pending = '';
    if (chunk && !res.writableEnded && !res.destroyed) res.write(chunk);
  };
  const write = (chunk: string) => {
    if (!writable()) return;
    if (pending === '') process.nextTick(flush);
    pending += chunk;
  };

  if (!res.headersSent) {
    for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Encoding');
    res.writeHead(status);
    res.flushHeaders();
  }
  req.socket?.setNoDelay(true);
  if (heartbeatMs > 0) heartbeat = timers.setInterval(() => write(formatComment('ping')), heartbeatMs);

  const sink: SseSink = {
    send<E extends ChatEventName>(event: E, data: ChatEventMap[E]) {
      write(formatEvent(event, data));
      if (event === 'done') sink.end();
    },
    comment(text: string) {
      write(formatComment(text));
    },
    get signal() {
      return controller.signal;
    },
    get closed() {
      return ended || controller.signal.aborted;
    },
    end() {
      if (ended) return;
      ended = true;
      flush();
      stop();
      if (!res.writableEnded && !res.destroyed) res.end();
    },
  };
  // Not `req.destroyed`: Node destroys a request once its body is read, long before the client leaves.
  if (res.destroyed || res.socket?.destroyed) stop();
  return sink;
}
