/**
 * One POST of a notifier, answered by its status: the response body is read and dropped. On `node:http(s)`
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

export function postStatus(url: URL, headers: Record<string, string>, body: string | Buffer, options: PostOptions): Promise<number> {
  const { agent, signal, timeoutMs } = options;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers, agent, signal }, (res) => {
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
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
