/**
 * One POST of a notifier, answered by its status: the response body is read and dropped. On `node:http(s)`
 * with the caller's keep-alive agent, which costs about half the CPU of `fetch` per delivery (bench
 * `notify`): a burst of cards due at once is bound by this process's CPU.
 */
import { request as httpRequest, type Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

export function postStatus(
  url: URL,
  headers: Record<string, string>,
  body: string | Buffer,
  { agent, signal }: { agent: HttpAgent | HttpsAgent; signal: AbortSignal },
): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers, agent, signal }, (res) => {
      res.on('error', reject);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.resume();
    });
    req.on('error', (err) => reject(signal.aborted ? (signal.reason ?? err) : err));
    req.end(body);
  });
}
