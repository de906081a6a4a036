/**
 * The chat stream as a web `Response` (docs/protocol.md §3), for Fetch-API hosts (Hono, Next.js route
 * handlers, Bun, Deno). The client leaving cancels the body, which aborts the sink's signal.
 */
import type { SseSink } from './host.js';
import { frameSink, SSE_HEADERS, type OpenSseOptions } from './sse-format.js';

export function openWebSse(options: OpenSseOptions & { status?: number } = {}): { sink: SseSink; response: Response } {
  const { status = 200, ...frames } = options;
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
  return { sink, response: new Response(body, { status, headers: SSE_HEADERS }) };
}
