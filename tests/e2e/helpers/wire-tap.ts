/**
 * What actually crossed the wire between the page and the server, seen from inside the page: every
 * `fetch` to `/api/…` with its request body, status, content type and the response body bytes exactly
 * as the page read them (the body is teed, so the page's own reader is untouched). Chunks are pushed to
 * the test through a binding as they arrive, so a reload or a dying server loses nothing already seen.
 *
 * Playwright's own request events are recorded too, as an independent witness that covers requests
 * made without `fetch` (XHR, beacons, form posts): "no continue left the page" is checked against both.
 */
import type { BrowserContext, Request } from 'playwright-core';

export interface TappedExchange {
  /** In-page id, unique per context. */
  id: string;
  method: string;
  /** Path and query, e.g. `/api/chat/continue`. */
  path: string;
  requestBody: string | null;
  status?: number;
  contentType?: string;
  /** Response body bytes in arrival order. */
  chunks: Buffer[];
  /** `end` when the body was read to its end, `error: …` when reading failed, undefined while open. */
  end?: string;
  /** `fetch` itself rejected (network error, abort). */
  failed?: string;
}

export interface SeenRequest {
  method: string;
  path: string;
  resourceType: string;
  postData: string | null;
}

export interface WireTap {
  readonly exchanges: TappedExchange[];
  /** Requests to `/api/…` seen by Playwright, whatever made them. */
  readonly requests: SeenRequest[];
  /** Exchanges on `path` (exact match, query ignored). */
  on(path: string, method?: string): TappedExchange[];
  /** The whole response body of an exchange. */
  body(exchange: TappedExchange): Buffer;
  /** Resolves when some exchange on `path` satisfies `until` (default: its body ended). */
  waitFor(path: string, until?: (x: TappedExchange) => boolean, timeoutMs?: number): Promise<TappedExchange>;
}

type TapMessage =
  | { kind: 'request'; id: string; method: string; path: string; body: string | null }
  | { kind: 'response'; id: string; status: number; contentType: string }
  | { kind: 'chunk'; id: string; base64: string }
  | { kind: 'end'; id: string; how: string }
  | { kind: 'failed'; id: string; reason: string };

/** Runs in the page before any of its scripts. Kept free of outside references: it is serialized. */
function pageTap() {
  const w = window as unknown as { __e2eTap: (m: unknown) => Promise<void>; __e2eTapped?: boolean };
  if (w.__e2eTapped) return;
  w.__e2eTapped = true;
  const original = window.fetch.bind(window);
  let n = 0;
  const toBase64 = (bytes: Uint8Array) => {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  };
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/api/')) return original(input, init);
    const id = `${Date.now().toString(36)}-${++n}`;
    const body = init?.body === undefined || init.body === null ? null : typeof init.body === 'string' ? init.body : '[non-string body]';
    await w.__e2eTap({ kind: 'request', id, method: request.method, path: url.pathname + url.search, body });
    let response: Response;
    try {
      response = await original(input, init);
    } catch (error) {
      void w.__e2eTap({ kind: 'failed', id, reason: String(error) });
      throw error;
    }
    void w.__e2eTap({ kind: 'response', id, status: response.status, contentType: response.headers.get('content-type') ?? '' });
    // Chromium gives a 204 a (empty) body, and a Response of a null-body status cannot be built with one:
    // such a response is handed over as it came, or the page would see the tap throw instead of its 204.
    if (!response.body || [101, 103, 204, 205, 304].includes(response.status)) {
      void w.__e2eTap({ kind: 'end', id, how: 'end' });
      return response;
    }
    const [mine, theirs] = response.body.tee();
    void (async () => {
      const reader = mine.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await w.__e2eTap({ kind: 'chunk', id, base64: toBase64(value) });
        }
        void w.__e2eTap({ kind: 'end', id, how: 'end' });
      } catch (error) {
        void w.__e2eTap({ kind: 'end', id, how: `error: ${String(error)}` });
      }
    })();
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

export async function installWireTap(context: BrowserContext): Promise<WireTap> {
  const exchanges: TappedExchange[] = [];
  const byId = new Map<string, TappedExchange>();
  const requests: SeenRequest[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());

  await context.exposeBinding('__e2eTap', (_source, message: TapMessage) => {
    if (message.kind === 'request') {
      const x: TappedExchange = { id: message.id, method: message.method, path: message.path, requestBody: message.body, chunks: [] };
      exchanges.push(x);
      byId.set(x.id, x);
    } else {
      const x = byId.get(message.id);
      if (!x) return;
      if (message.kind === 'response') Object.assign(x, { status: message.status, contentType: message.contentType });
      else if (message.kind === 'chunk') x.chunks.push(Buffer.from(message.base64, 'base64'));
      else if (message.kind === 'end') x.end = message.how;
      else x.failed = message.reason;
    }
    notify();
  });
  // tsx compiles with keepNames, so the serialized function may call esbuild's `__name`: give it one.
  await context.addInitScript({ content: `(() => { const __name = (f) => f; (${pageTap.toString()})(); })();` });
  context.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith('/api/')) return;
    requests.push({ method: r.method(), path: url.pathname + url.search, resourceType: r.resourceType(), postData: r.postData() });
  });

  const on = (path: string, method?: string) => exchanges.filter((x) => x.path.split('?')[0] === path && (!method || x.method === method));
  return {
    exchanges,
    requests,
    on,
    body: (x) => Buffer.concat(x.chunks),
    waitFor(path, until = (x) => x.end !== undefined || x.failed !== undefined, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = on(path).find(until);
          if (!hit) return false;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          const seen = exchanges.map((x) => `${x.method} ${x.path} → ${x.status ?? '…'} ${x.end ?? ''}`).join('\n  ');
          reject(
            new Error(`no exchange on ${path} reached the expected state within ${timeoutMs} ms; the page made:\n  ${seen || '(nothing)'}`),
          );
        }, timeoutMs);
        if (!check()) listeners.add(check);
      });
    },
  };
}
