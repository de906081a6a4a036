/**
 * The chat stream as a web `Response` (docs/protocol.md §3), for Fetch-API hosts (Hono, Next.js route
 * handlers, Bun, Deno). The client leaving cancels the body, which aborts the sink's signal.
 */
import type { SseSink } from './host.js';
import { frameSink, SSE_HEADERS, type OpenSseOptions } from './sse-format.js';

/** Builds the stream's Response; a framework's own builder keeps the headers a host set on its context. */
export type WebStreamResponse = (body: ReadableStream<Uint8Array>, status: number, headers: Readonly<Record<string, string>>) => Response;

const plainResponse: WebStreamResponse = (body, status, headers) => new Response(body, { status, headers });

export function openWebSse(options: OpenSseOptions & { status?: number; respond?: WebStreamResponse } = {}): {
  sink: SseSink;
  response: Response;
} {
  const { status = 200, respond = plainResponse, ...frames } = options;
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      open = false;
      sink.stop();
    },
  });
  const sink = frameSink(
    {
      get open() {
        return open;
      },
      write: (chunk) => controller.enqueue(encoder.encode(chunk)),
      end: (last) => {
        if (last !== undefined) controller.enqueue(encoder.encode(last));
        open = false;
        controller.close();
      },
    },
    frames,
  );
  return { sink, response: respond(body, status, SSE_HEADERS) };
}
