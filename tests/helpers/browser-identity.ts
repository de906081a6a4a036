/**
 * The demo binds each session to the browser that first used it (an HttpOnly cookie). A node test talks
 * to it with `fetch`, which keeps no cookies: loaded with `--import`, this gives every loopback request of
 * the test process one fixed browser cookie, as a browser would send. Requests that set a `cookie` header
 * themselves keep it, so the ownership tests can act as a second browser or as none.
 */
import { OWNER_COOKIE } from '../../demo/session-owners.js';

export const TEST_BROWSER_TOKEN = 'test-browser-identity-0123456789abcdefghijk';
export const TEST_BROWSER_COOKIE = `${OWNER_COOKIE}=${TEST_BROWSER_TOKEN}`;

const plain = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return plain(input, init);
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
  if (!headers.has('cookie')) headers.set('cookie', TEST_BROWSER_COOKIE);
  return plain(input, { ...init, headers });
};
