/**
 * One POST of a notifier, answered by its status and its `Retry-After`: the response body is read and dropped. On `node:http(s)`
 * with the caller's keep-alive agent, which costs about half the CPU of `fetch` per delivery (bench
 * `notify`): a burst of cards due at once is bound by this process's CPU. The attempt's time limit is one
 * timer cleared with the request, not an abort signal per attempt that lives on for its whole timeout.
 */
import { request as httpRequest, type Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

export interface PostOptions {
  agent: HttpAgent | HttpsAgent;
  /** Aborts the request (the kit closes). */
  signal: AbortSignal;
  /** The whole attempt's limit; past it the request fails with a `TimeoutError`. */
  timeoutMs?: number;
}

/** What a notifier's POST learns: the status, and how long the receiver asked to wait before a retry. */
export interface PostReply {
  status: number;
  /** From `Retry-After` (seconds or an HTTP date), when the receiver sent one. */
  retryAfterMs?: number;
}

/** A receiver's `Retry-After` is honoured up to this: a card is not left unannounced for hours on its word. */
export const RETRY_AFTER_CAP_MS = 5 * 60_000;

/** The wait before the next attempt: the notifier's own, or longer when the receiver asked for longer. */
export function retryWaitMs(scheduledMs: number, reply: { retryAfterMs?: number } | undefined): number {
  const asked = reply?.retryAfterMs;
  return asked === undefined ? scheduledMs : Math.max(scheduledMs, Math.min(asked, RETRY_AFTER_CAP_MS));
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP date; anything else is ignored. */
export function retryAfterMsOf(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function postStatus(url: URL, headers: Record<string, string>, body: string | Buffer, options: PostOptions): Promise<PostReply> {
  const { agent, signal, timeoutMs } = options;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers, agent, signal }, (res) => {
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        const retryAfterMs = retryAfterMsOf(res.headers['retry-after'], Date.now());
        resolve({ status: res.statusCode ?? 0, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
      });
      res.resume();
    });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => req.destroy(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    timer?.unref();
    function fail(err: Error) {
      clearTimeout(timer);
      reject(signal.aborted ? (signal.reason ?? err) : err);
    }
    req.on('error', fail);
    req.end(body);
  });
}
