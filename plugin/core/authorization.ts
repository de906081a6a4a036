/**
 * Who may act on a session. The kit serves its routes only with a policy: a function that binds the
 * session to the caller, or `allowAnyCaller`, the explicit opt-out for tests and local demos. A session
 * id travels in URLs, logs and support tickets, so knowing one must never be enough to read or answer
 * its question.
 */
/**
 * Resolve true when the request's caller owns `sessionId`; false answers 403 `forbidden`. `ctx` is what
 * the adapter serving the routes has for a request: Koa's context, Express's request, Hono's context,
 * or a Fetch `Request`.
 */
export type Authorize<Ctx = unknown> = (ctx: Ctx, sessionId: string) => boolean | Promise<boolean>;

const ANY_CALLER = Symbol.for('ask-user-kit.allow-any-caller');

/**
 * Every caller may read and answer every session's questions. For tests and local demos only: the kit
 * logs a warning once when it starts serving with it.
 */
export const allowAnyCaller: Authorize<unknown> = Object.assign(() => true, { [ANY_CALLER]: true });

const isAllowAnyCaller = (authorize: Authorize<never>) => (authorize as unknown as Record<symbol, unknown>)[ANY_CALLER] === true;

/** The kit's policy; throws when there is none. */
export function requireAuthorize<Ctx>(authorize: Authorize<Ctx> | undefined): Authorize<Ctx> {
  if (typeof authorize !== 'function') {
    throw new TypeError(
      'createAskUserKit({ authorize }) is required: pass (ctx, sessionId) => boolean that checks the caller owns the session ' +
        '(for example against your login), or allowAnyCaller for tests and local demos.',
    );
  }
  return authorize;
}

/** A kit's warning about the opt-out: called whenever the kit starts serving callers, it warns once. */
export function anyCallerWarning(authorize: Authorize<never>, warn: (message: string) => void): () => void {
  let warned = !isAllowAnyCaller(authorize);
  return () => {
    if (warned) return;
    warned = true;
    warn(
      "[ask-user-kit] authorize: allowAnyCaller — every caller may read and answer every session's questions. Use it only for tests and local demos.",
    );
  };
}
