/**
 * Test-side HTTP calls to a demo server: POST a chat or continue and read the whole event stream, with
 * eventsource-parser (not the widget's reader, so the server is checked by an independent parser).
 */
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  event: string;
  data: any;
}

export interface StreamResult {
  status: number;
  contentType: string;
  /** Parsed events, in order (JSON bodies when the response is not a stream end up in `json`). */
  events: SseEvent[];
  json?: any;
  raw: string;
}

export async function postStream(url: string, body: unknown): Promise<StreamResult> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const contentType = res.headers.get('content-type') ?? '';
  const raw = await res.text();
  if (!contentType.startsWith('text/event-stream')) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType, events: [], json, raw };
  }
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) }) });
  parser.feed(raw);
  return { status: res.status, contentType, events, raw };
}

export const names = (r: StreamResult) => r.events.map((e) => e.event);
export const first = (r: StreamResult, name: string) => r.events.find((e) => e.event === name)?.data;
export const all = (r: StreamResult, name: string) => r.events.filter((e) => e.event === name).map((e) => e.data);
export const text = (r: StreamResult) =>
  all(r, 'message_delta')
    .map((d) => d.text)
    .join('');

/** `names` with runs of message_delta folded into one, for order assertions. */
export function shape(r: StreamResult): string[] {
  const out: string[] = [];
  for (const n of names(r)) if (!(n === 'message_delta' && out.at(-1) === 'message_delta')) out.push(n);
  return out;
}

export const answerBody = (sessionId: string, requestId: string, selections: string[] = [], customInput = '', cancelled = false) => ({
  sessionId,
  requestId,
  selections,
  customInput,
  cancelled,
});

export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

/**
 * POST a chat and read its stream only until `event` arrives (an MCP card comes while the stream stays
 * open on the tool call): that event's data, the rest of the stream once it ends (or what came before
 * `leave()`), and `leave()`, which drops the connection as a reloading page does.
 */
export async function postStreamUntil(
  url: string,
  body: unknown,
  event: string,
): Promise<{ data: any; rest: Promise<SseEvent[]>; leave: () => void }> {
  const left = new AbortController();
  const leave = () => left.abort();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: left.signal,
  });
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) }) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const readOn = async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      parser.feed(decoder.decode(value, { stream: true }));
      const hit = events.find((e) => e.event === event);
      if (hit) return hit;
    }
  };
  const found = await readOn();
  if (Array.isArray(found)) return { data: undefined, rest: Promise.resolve(found), leave };
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch((err: unknown) => {
        if (left.signal.aborted) return { value: undefined, done: true as const };
        throw err;
      });
      if (done) return events;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { data: found.data, rest, leave };
}
