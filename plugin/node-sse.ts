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
  const sink = frameSink(
    {
      get open() {
        return !res.writableEnded && !res.destroyed;
      },
      write: (chunk) => void res.write(chunk),
      end: () => void res.end(),
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
