/**
 * Refuses state-changing requests a browser sends from another site. The routes accept only JSON, which
 * a plain cross-site form cannot send, and this closes the rest: a request whose `Origin` is neither the
 * server's own nor an allowed front-end origin, or that a browser marks `Sec-Fetch-Site: cross-site` or
 * `same-site`, is refused. A request with neither header (a server, curl) is not a browser's and passes;
 * authorization still applies to it.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import { AskUserError } from './errors.js';

export interface SameOriginOptions {
  /**
   * Front-end origins besides the server's own that may send state-changing requests, exactly as the
   * browser sends them in `Origin` (`https://app.example.com`). Behind a proxy, set Koa's `app.proxy` so
   * the server's own origin is the public one.
   * @default []
   */
  allowedOrigins?: readonly string[];
}

/** Why a browser request from elsewhere is refused, or undefined when it may go on. */
export function crossSiteReason(ctx: ParameterizedContext, allowedOrigins: readonly string[] = []): string | undefined {
  const origin = ctx.get('origin');
  if (origin) {
    // Koa 3's ctx.origin is the Origin header itself: the server's own origin is built from the Host.
    if (origin === `${ctx.protocol}://${ctx.host}` || allowedOrigins.includes(origin)) return undefined;
    return `requests from origin ${origin === 'null' ? 'null' : 'another origin'} are refused; a separate front-end origin must be listed in allowedOrigins`;
  }
  const site = ctx.get('sec-fetch-site');
  if (site === '' || site === 'same-origin' || site === 'none') return undefined;
  return `a ${site} request without an allowed Origin is refused`;
}

/** Throws 403 `forbidden` for a browser request from another site. */
export function assertSameOrigin(ctx: ParameterizedContext, allowedOrigins: readonly string[] = []): void {
  const reason = crossSiteReason(ctx, allowedOrigins);
  if (reason) throw new AskUserError('forbidden', `Cross-site request: ${reason}.`);
}

/** Koa middleware for a host's own state-changing routes (its chat route): 403 `forbidden` from another site. */
export function sameOriginOnly(options: SameOriginOptions = {}): Middleware {
  const { allowedOrigins = [] } = options;
  return async function sameOrigin(ctx, next) {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return next();
    const reason = crossSiteReason(ctx, allowedOrigins);
    if (!reason) return next();
    const err = new AskUserError('forbidden', `Cross-site request: ${reason}.`);
    ctx.status = err.status;
    ctx.body = err.toBody();
  };
}
