/**
 * Refuses state-changing requests a browser sends from another site. The routes accept only JSON, which
 * a plain cross-site form cannot send, and this closes the rest: a request whose `Origin` is neither the
 * server's own nor an allowed front-end origin, or that a browser marks `Sec-Fetch-Site: cross-site` or
 * `same-site`, is refused. A request with neither header (a server, curl) is not a browser's and passes;
 * authorization still applies to it. Each adapter offers it for the host's own routes (`sameOriginOnly`).
 */
import { AskUserError } from './errors.js';

export interface SameOriginOptions {
  /**
   * Front-end origins besides the server's own that may send state-changing requests, exactly as the
   * browser sends them in `Origin` (`https://app.example.com`). Behind a proxy, make the framework trust
   * it (Koa `app.proxy`, Express `trust proxy`) so the server's own origin is the public one.
   * @default []
   */
  allowedOrigins?: readonly string[];
}

/**
 * Why a browser request from elsewhere is refused, or undefined when it may go on. `ownOrigin` is
 * `protocol://host` as the client addressed the server.
 */
export function crossSiteReason(
  origin: string | undefined,
  fetchSite: string | undefined,
  ownOrigin: string,
  allowedOrigins: readonly string[] = [],
): string | undefined {
  if (origin) {
    if (origin === ownOrigin || allowedOrigins.includes(origin)) return undefined;
    return `requests from origin ${origin === 'null' ? 'null' : 'another origin'} are refused; a separate front-end origin must be listed in allowedOrigins`;
  }
  if (!fetchSite || fetchSite === 'same-origin' || fetchSite === 'none') return undefined;
  return `a ${fetchSite} request without an allowed Origin is refused`;
}

/** A state-changing method: the only ones the cross-site rule applies to. */
export const changesState = (method: string): boolean => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/** The 403 `forbidden` for a browser request from elsewhere, or undefined when it may go on. */
export function crossSiteError(
  origin: string | undefined,
  fetchSite: string | undefined,
  ownOrigin: string,
  allowedOrigins: readonly string[] = [],
): AskUserError | undefined {
  const reason = crossSiteReason(origin, fetchSite, ownOrigin, allowedOrigins);
  return reason ? new AskUserError('forbidden', `Cross-site request: ${reason}.`) : undefined;
}
