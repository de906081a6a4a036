/**
 * Hono: the kit's routes as middleware, on the Fetch adapter (Hono hands over the web `Request` and takes
 * a `Response`), so the same routes serve on Node, Bun, Deno and edge runtimes.
 *
 *   app.use(honoRoutes(kit));
 *   app.post('/api/chat', honoChat(kit));
 *
 * Every response is built through the context (`c.newResponse`), so headers and cookies a host or its
 * middleware set on `c` before the kit answers (a session cookie, CORS, tracing) reach the client.
 */
import type { Context, ErrorHandler, Handler, MiddlewareHandler } from 'hono';
import type { AskUserKit } from '../core/ask-user-kit.js';
import { crossSiteRefusal } from './fetch.js';
import { publicError } from '../core/public-error.js';
import type { SameOriginOptions } from '../core/same-origin.js';
import { jsonHeaders, respondWeb, type WebResponder } from './web-request.js';

export { webSse } from './fetch.js';

/** Responses built by Hono's context, which adds what the host set on it. */
const contextResponder = (c: Context): WebResponder => ({
  json: (status, headers, body) =>
    status === 204 ? c.newResponse(null, 204, headers) : c.newResponse(JSON.stringify(body), status as never, jsonHeaders(headers)),
  stream: (body, status, headers) => c.newResponse(body, status as never, headers),
});

/** Middleware serving the kit's two routes; other paths go on. `authorize` receives Hono's context. */
export function honoRoutes(kit: AskUserKit<Context>): MiddlewareHandler {
  const serve = kit.serveRoutes();
  return async function askUserRoutes(c, next) {
    const response = await respondWeb(kit, c.req.raw, contextResponder(c), (req, openSse) => serve(req, c, openSse));
    if (!response) return next();
    corkNodeSocket(c);
    return response;
  };
}

/**
 * `POST /api/chat` on the kit's runtime: the chat stream, or the JSON error of a refusal (cross-site,
 * bad body, 400 `invalid_request`, 403 `forbidden` from `authorize`, which receives Hono's context).
 * Throws now when the kit has no runtime with `chat`.
 */
export function honoChat(kit: AskUserKit<Context>): Handler {
  const serve = kit.serveChat();
  return async function askUserChat(c) {
    const response = await respondWeb(kit, c.req.raw, contextResponder(c), (req, openSse) => serve(req, c, openSse));
    corkNodeSocket(c);
    // The chat route answers every request it is given.
    return response!;
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

/**
 * For `app.onError(honoErrors())`: errors as the contract's JSON body, instead of a bare 500 text: an
 * `AskUserError` with its status and body, a client error (an `HTTPException` 4xx) with its status and
 * fixed words, anything else as 500 `internal_error`, logged with `log`. Headers set on `c` are kept.
 */
export function honoErrors(log: (err: unknown) => void = (err) => console.error('[ask-user-kit]', err)): ErrorHandler {
  return function askUserErrors(err, c) {
    const reply = publicError(err);
    if (reply.unexpected) log(err);
    return contextResponder(c).json(reply.status, {}, reply.body);
  };
}
