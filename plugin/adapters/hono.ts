/**
 * Hono: the kit's routes as middleware, on the Fetch adapter (Hono hands over the web `Request` and takes
 * a `Response`), so the same routes serve on Node, Bun, Deno and edge runtimes.
 *
 *   app.use(honoRoutes(kit));
 *   app.post('/api/chat', (c) => { const { sink, response } = webSse(kit); void loop.chat({ …, sse: sink }); return response; });
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AskUserKit } from '../ask-user-kit.js';
import { crossSiteRefusal, fetchRoutes } from './fetch.js';
import type { SameOriginOptions } from '../same-origin.js';

export { webSse } from './fetch.js';

/** Middleware serving the kit's two routes; other paths go on. `authorize` receives Hono's context. */
export function honoRoutes(kit: AskUserKit<Context>): MiddlewareHandler {
  const routes = fetchRoutes(kit);
  return async function askUserRoutes(c, next) {
    const response = await routes(c.req.raw, c);
    if (response) return response;
    await next();
  };
}

/** The cross-site rule for the host's own state-changing routes: 403 `forbidden`. */
export function sameOriginOnly(options: SameOriginOptions = {}): MiddlewareHandler {
  return async function sameOrigin(c, next) {
    const refused = crossSiteRefusal(c.req.raw, options);
    if (refused) return refused;
    await next();
  };
}
