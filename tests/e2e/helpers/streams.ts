/** The chat and continue streams as the page received them, parsed from the tapped raw bytes. */
import type { DemoProcess } from './demo-process.js';
import { parseSse, type RawEvent } from './model-evidence.js';
import type { TappedExchange, WireTap } from './wire-tap.js';

export interface Stream {
  exchange: TappedExchange;
  raw: Buffer;
  events: RawEvent[];
}

const read = (tap: WireTap, exchange: TappedExchange): Stream => {
  const raw = tap.body(exchange);
  return { exchange, raw, events: parseSse(raw) };
};

/** The `n`-th (1-based) `POST /api/chat` stream, once it has ended. */
export async function chatStream(tap: WireTap, n = 1): Promise<Stream> {
  await tap.waitFor('/api/chat', () => tap.on('/api/chat', 'POST').filter((x) => x.end || x.failed).length >= n);
  return read(tap, tap.on('/api/chat', 'POST')[n - 1]!);
}

/** The first `count` `POST /api/chat/continue` exchanges, once each has ended. */
export async function continueStreams(tap: WireTap, count: number): Promise<Stream[]> {
  await tap.waitFor('/api/chat/continue', () => tap.on('/api/chat/continue', 'POST').filter((x) => x.end || x.failed).length >= count);
  return tap
    .on('/api/chat/continue', 'POST')
    .slice(0, count)
    .map((x) => read(tap, x));
}

/** Audit lines the server printed for `requestId`. */
export const auditOf = (server: DemoProcess, requestId: string) =>
  server.audit().filter((a) => a.requestId === requestId) as Array<Record<string, any>>;

/** Resolves with the first audit line of `requestId` whose event is `event`; the server logs it asynchronously. */
export async function waitForAudit(
  server: DemoProcess,
  requestId: string,
  event: string,
  timeoutMs = 20_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = auditOf(server, requestId).find((a) => a.event === event);
    if (hit) return hit;
    if (Date.now() > deadline) {
      const seen = auditOf(server, requestId).map((a) => a.event);
      throw new Error(
        `no "${event}" audit line for ${requestId} within ${timeoutMs} ms; the server logged: ${seen.join(', ') || '(nothing)'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
