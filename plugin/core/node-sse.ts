/**
 * The chat stream on a Node response (docs/protocol.md §3), for the Node adapters (Koa, Express). It
 * writes to the socket itself, so no body-wrapping middleware (compression, ETag, body loggers) can
 * buffer or gzip the stream, and every event reaches the client when it is written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SseSink } from './host.js';
import { frameSink, SSE_HEADERS, type OpenSseOptions } from './sse-format.js';

export function openNodeSse(req: IncomingMessage, res: ServerResponse, options: OpenSseOptions & { status?: number } = {}): SseSink {
  const { status = 200, ...frames } = options;
  // The headers and whatever the run writes in this tick leave in one socket write: until the next tick
  // the socket is corked. Flushed uncorked, the headers took a write of their own, and that second
  // syscall was the largest single cost of a short answer. A longer run still gets its headers next tick.
  const socket = res.socket;
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    socket!.uncork();
  };
  if (socket && !res.headersSent && !socket.destroyed) {
    socket.cork();
    corked = true;
    process.nextTick(uncork);
  }
  const sink = frameSink(
    {
      get open() {
        return !res.writableEnded && !res.destroyed;
      },
      write: (chunk) => {
        res.write(chunk);
      },
      end: (last) => {
        if (last === undefined) res.end();
        else res.end(last);
        uncork();
      },
    },
    frames,
  );
  // A reset peer surfaces as 'error' (EPIPE, ECONNRESET); the stream is over, there is nothing to report.
  res.on('error', sink.stop);
  res.on('close', sink.stop);
  if (!res.headersSent) {
    for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Encoding');
    res.writeHead(status);
    res.flushHeaders();
  }
  req.socket?.setNoDelay(true);
  // Not `req.destroyed`: Node destroys a request once its body is read, long before the client leaves.
  if (res.destroyed || res.socket?.destroyed) sink.stop();
  return sink;
}
