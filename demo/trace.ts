/**
 * The developer trace behind the page's raw-SSE panel and `GET /api/trace`: every byte of every chat
 * stream as written to the socket, and every audit entry, per session. Kept in process memory, bounded
 * per session; with several instances each holds the trace of the streams it served.
 */
import type { ServerResponse } from 'node:http';
import type { AuditEntry, AuditLogger } from 'ask-user-kit/plugin';

export interface TraceLine {
  /** ISO 8601. */
  at: string;
  source: 'sse' | 'audit';
  /** For `sse`: which stream (`chat` or `continue`) and the raw event block as sent. */
  stream?: 'chat' | 'continue';
  text: string;
}

export class TraceBook {
  readonly #lines = new Map<string, TraceLine[]>();
  readonly #limit: number;

  constructor(limit = 2000) {
    this.#limit = limit;
  }

  add(sessionId: string, line: TraceLine): void {
    let list = this.#lines.get(sessionId);
    if (!list) this.#lines.set(sessionId, (list = []));
    list.push(line);
    if (list.length > this.#limit) list.splice(0, list.length - this.#limit);
  }

  get(sessionId: string): TraceLine[] {
    return [...(this.#lines.get(sessionId) ?? [])];
  }

  /** Audit entries go to `next` (stdout by default) and into the session's trace. */
  auditLogger(next: AuditLogger): AuditLogger {
    return {
      audit: (entry: AuditEntry) => {
        next.audit(entry);
        if (entry.sessionId) this.add(entry.sessionId, { at: entry.at, source: 'audit', text: JSON.stringify(entry) });
      },
    };
  }

  /**
   * Copies what a chat stream writes to the socket, for any framework (Koa, Express, Hono on Node all end
   * in `res.write`). It taps the socket because the continue stream is opened inside the plugin's route,
   * beyond the reach of any wrapper around a sink; `sessionOf` is read at write time, once the route has
   * read the body. Only a 200 answer is a stream: a refusal is JSON.
   */
  tapResponse(res: ServerResponse, stream: TraceStream, sessionOf: () => unknown): void {
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    let pending = '';
    (res as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      const sessionId = sessionOf();
      if (typeof sessionId === 'string' && res.statusCode === 200) {
        pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
        let cut: number;
        while ((cut = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          // Heartbeats and the stream's opening `retry:` are not events.
          if (block !== ': ping' && !block.startsWith('retry:'))
            this.add(sessionId, { at: new Date().toISOString(), source: 'sse', stream, text: block });
        }
      }
      return write(chunk, ...rest);
    };
  }
}

export type TraceStream = 'chat' | 'continue';

/** The trace stream a request writes, if any: the chat and continue POSTs. */
export function traceStreamOf(method: string, path: string): TraceStream | undefined {
  if (method !== 'POST') return undefined;
  return path === '/api/chat' ? 'chat' : path === '/api/chat/continue' ? 'continue' : undefined;
}
