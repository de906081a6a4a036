/**
 * The demo's authorization policy: each session belongs to the browser that first used it. A browser is
 * an HttpOnly, SameSite=Lax cookie holding 256 random bits; the store keeps only its SHA-256 per session
 * (`owner:<sessionId>`), so every instance sharing the store agrees, a restart keeps the binding, and a
 * leaked store does not hand out cookies. Knowing a session id (from a URL, a log) is not enough.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PendingStore } from 'ask-user-kit/plugin';

export const OWNER_COOKIE = 'ask_user_owner';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The browser's token from its cookie, or undefined when it sent none (or a malformed one). */
export const sentToken = (value: string | undefined): string | undefined => (value && TOKEN.test(value) ? value : undefined);

export const newToken = (): string => randomBytes(32).toString('base64url');

/** Lax: a link from elsewhere still opens the visitor's own sessions; cross-site POSTs carry no cookie. */
export const ownerCookieOptions = (secure: boolean) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
  path: '/',
  maxAgeSeconds: 365 * 24 * 3600,
});

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Bindings this process has seen, which never change once made: most requests need no store read. */
const KNOWN_OWNERS = 10_000;
const known = new WeakMap<PendingStore, Map<string, string>>();

/**
 * True when the browser holding `token` owns `sessionId`; a session nobody owns yet becomes its. Binding
 * on first use of any route means a stranger's answer looks the same for a session that exists and one
 * that does not: 403 either way once it is someone else's.
 */
export async function ownsSession(store: PendingStore, token: string, sessionId: string): Promise<boolean> {
  const mine = digest(token);
  const key = `owner:${sessionId}`;
  let seen = known.get(store);
  if (!seen) known.set(store, (seen = new Map()));
  const remember = (owner: string) => {
    seen.set(sessionId, owner);
    if (seen.size > KNOWN_OWNERS) seen.delete(seen.keys().next().value!);
    return owner === mine;
  };
  const cached = seen.get(sessionId);
  if (cached !== undefined) return cached === mine;
  for (let attempt = 0; attempt < 3; attempt++) {
    // A new session is the usual case: bind first, read only when someone already did.
    if (await store.putState(key, { owner: mine }, { ifVersion: null, sessionId })) return remember(mine);
    const held = await store.getState<{ owner: string }>(key, { sessionId });
    if (held) return remember(held.value.owner);
    // Bound and gone between our two calls (past a TTL): try again.
  }
  return false;
}

/**
 * The caller's token for one request: the cookie it sent, or a new one set on its response. Kept per
 * request, so the chat route and the routes' authorize see the same new browser.
 */
export function requestToken<Ctx extends object>(
  read: (ctx: Ctx) => string | undefined,
  set: (ctx: Ctx, token: string) => void,
): (ctx: Ctx) => string {
  const seen = new WeakMap<Ctx, string>();
  return (ctx) => {
    let token = seen.get(ctx) ?? sentToken(read(ctx));
    if (!token) set(ctx, (token = newToken()));
    seen.set(ctx, token);
    return token;
  };
}
