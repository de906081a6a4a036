/**
 * Sending a catalogue row exactly as written: raw bytes, odd content types, chunked bodies. `fetch`
 * adds a text/plain Content-Type to string bodies, so bytes go as a Uint8Array when no type is wanted.
 */
import type { BadInput } from '../fixtures/bad-inputs.js';

export interface Ids {
  sessionId: string;
  requestId: string;
}

/** Replace the `$sid` / `$rid` placeholders in string values, keys left as they are. */
export function substitute(value: unknown, ids: Ids): unknown {
  if (value === '$sid') return ids.sessionId;
  if (value === '$rid') return ids.requestId;
  if (Array.isArray(value)) return value.map((v) => substitute(v, ids));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, ids)]));
  }
  return value;
}

export function bodyBytes(row: Pick<BadInput, 'body' | 'raw'>, ids: Ids): Buffer {
  if (row.raw !== undefined) {
    const text = row.raw.replaceAll('$sid', ids.sessionId).replaceAll('$rid', ids.requestId);
    const parts = text.split('$BAD_UTF8').map((p) => Buffer.from(p, 'utf8'));
    return Buffer.concat(parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from([0xff, 0xfe]), p])));
  }
  return Buffer.from(JSON.stringify(substitute(row.body, ids)), 'utf8');
}

export function sendRow(url: string, row: BadInput, ids: Ids): Promise<Response> {
  const bytes = bodyBytes(row, ids);
  const headers: Record<string, string> = {};
  const contentType = row.contentType === undefined ? 'application/json' : row.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  if (row.chunked) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // Several chunks, so the limit is found while streaming, not from a length.
        for (let i = 0; i < bytes.length; i += 16 * 1024) controller.enqueue(new Uint8Array(bytes.subarray(i, i + 16 * 1024)));
        controller.close();
      },
    });
    return fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  }
  return fetch(url, { method: 'POST', headers, body: new Uint8Array(bytes) });
}
