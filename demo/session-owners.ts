/**
 * The demo's authorization policy: each session belongs to the browser that first used it. A browser is
 * an HttpOnly, SameSite=Lax cookie holding 256 random bits; the store keeps only its SHA-256 per session
 * (`owner:<sessionId>`), so every instance sharing the store agrees, a restart keeps the binding, and a
 * leaked store does not hand out cookies. Knowing a session id (from a URL, a log) is not enough.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import type { Authorize } from '../plugin/authorization.js';
import type { PendingStore } from '../plugin/store/types.js';

export const OWNER_COOKIE = 'ask_user_owner';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The caller's browser token: the cookie it sent, or a new one set on this response. */
export function browserToken(ctx: ParameterizedContext): string {
  const sent = ctx.cookies.get(OWNER_COOKIE);
  if (sent && TOKEN.test(sent)) return sent;
  const token = randomBytes(32).toString('base64url');
  // Lax: a link from elsewhere still opens the visitor's own sessions; cross-site POSTs carry no cookie.
  ctx.cookies.set(OWNER_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/', overwrite: true, maxAge: 365 * 24 * 3600 * 1000 });
  return token;
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * True when the caller's browser owns `sessionId`; a session nobody owns yet becomes the caller's. Binding
 * on first use of any route means a stranger's answer looks the same for a session that exists and one
 * that does not: 403 either way once it is someone else's.
 */
export function sessionOwners(store: PendingStore): Authorize {
  return async (ctx, sessionId) => {
    const mine = digest(browserToken(ctx));
    const key = `owner:${sessionId}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const held = await store.getState<{ owner: string }>(key);
      if (held) return held.value.owner === mine;
      if (await store.putState(key, { owner: mine }, { ifVersion: null })) return true;
      // Another request bound it first: read who won.
    }
    return false;
  };
}
