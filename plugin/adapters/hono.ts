/**
 * Hono: the kit's routes as middleware, on the Fetch adapter (Hono hands over the web `Request` and takes
 * a `Response`), so the same routes serve on Node, Bun, Deno and edge runtimes.
 *
 *   app.use(honoRoutes(kit));
 *   app.post('/api/chat', (c) => { const { sink, response } = webSse(kit); void loop.chat({ …, sse: sink }); return response; });
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AskUserKit } from '../core/ask-user-kit.js';
import { crossSiteRefusal, fetchRoutes } from './fetch.js';
import type { SameOriginOptions } from '../core/same-origin.js';

export { webSse } from './fetch.js';

/** Middleware serving the kit's two routes; other paths go on. `authorize` receives Hono's context. */
export function honoRoutes(kit: AskUserKit<Context>): MiddlewareHandler {
  const routes = fetchRoutes(kit);
  return async function askUserRoutes(c, next) {
    const response = await routes(c.req.raw, c);
    if (!response) return next();
    // Not `response.body`: reading it turns @hono/node-server's light Response into a full one, which it
    // then writes another way (buffered, with a Content-Length).
    corkNodeSocket(c);
    return response;
  };
}

/**
 * On Node (@hono/node-server puts the Node response at `c.env.outgoing`), a streamed body's headers are
 * flushed in a socket write of their own, then the chunks and the end follow. Corked until the event loop's
 * next turn, what is written by then (a whole short answer) leaves in one write; a longer run still gets
 * its headers and first frames on that turn. A JSON reply ends in one write anyway, and its `end()`
 * uncorks. Other runtimes have no `outgoing`, and nothing changes.
 */
function corkNodeSocket(c: Context): void {
  const socket = (c.env as { outgoing?: { socket?: NodeSocketLike | null } } | undefined)?.outgoing?.socket;
  if (!socket || socket.destroyed || typeof socket.cork !== 'function') return;
  socket.cork();
  setImmediate(() => {
    // The response's own `end()` uncorks fully; only a cork still held is released here.
    if (socket.writableCorked > 0) socket.uncork();
  });
}

interface NodeSocketLike {
  readonly destroyed: boolean;
  readonly writableCorked: number;
  cork(): void;
  uncork(): void;
}

/** The cross-site rule for the host's own state-changing routes: 403 `forbidden`. */
export function sameOriginOnly(options: SameOriginOptions = {}): MiddlewareHandler {
  return async function sameOrigin(c, next) {
    const refused = crossSiteRefusal(c.req.raw, options);
    if (refused) return refused;
    await next();
  };
}
