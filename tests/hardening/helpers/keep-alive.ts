/**
 * node:http over a keep-alive agent, for tests that fire thousands of requests: sockets are reused across
 * rounds, so a round costs the route's work, not a TCP handshake per request.
 */
import { Agent, request } from 'node:http';
import { TEST_BROWSER_COOKIE } from '../../helpers/browser-identity.js';

export interface Reply {
  status: number;
  contentType: string;
  text: string;
}

export const keepAliveAgent = (maxSockets = 100) => new Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 30_000 });

export function send(agent: Agent, method: string, url: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    // The demo binds sessions to a browser cookie: every request here is the same browser.
    const base = { cookie: TEST_BROWSER_COOKIE, ...headers };
    const req = request(
      url,
      {
        method,
        agent,
        headers: body === undefined ? base : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...base },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const postJson = (agent: Agent, url: string, body: string) => send(agent, 'POST', url, body);
export const getJson = async (agent: Agent, url: string) => JSON.parse((await send(agent, 'GET', url)).text) as unknown;
