/**
 * Fetch API (`Request → Response`): the kit's routes and chat stream for any host that speaks it —
 * Hono, Next.js route handlers, Bun, Deno, Cloudflare-style workers.
 *
 *   const routes = fetchRoutes(kit);
 *   const chat = fetchChat(kit); // POST /api/chat
 *   export async function POST(request: Request) { return (await routes(request)) ?? new Response(null, { status: 404 }); }
 */
import type { AskUserKit } from '../core/ask-user-kit.js';
import type { SseSink } from '../core/host.js';
import { changesState, crossSiteError, type SameOriginOptions } from '../core/same-origin.js';
import type { OpenSseOptions } from '../core/sse-format.js';
import { openWebSse } from '../core/web-sse.js';
import { publicError } from '../core/public-error.js';
import { ownOriginOf, plainResponder, respondWeb } from './web-request.js';

export { readRequestJson } from './json-request.js';

/**
 * A handler for the kit's two routes: a `Response` for them, `undefined` for any other path. `ctx` is
 * what `authorize` receives (default: the request). Throws now when the kit has no `authorize` policy.
 */
export function fetchRoutes<Ctx = Request>(kit: AskUserKit<Ctx>): (request: Request, ctx?: Ctx) => Promise<Response | undefined> {
  const serve = kit.serveRoutes();
  return (request, ctx = request as unknown as Ctx) =>
    respondWeb(kit, request, plainResponder, (req, openSse) => serve(req, ctx, openSse)).catch((err: unknown) => errorResponse(err));
}

/**
 * `POST /api/chat` on the kit's runtime: the chat stream, or the JSON error of a refusal (cross-site,
 * bad body, 400 `invalid_request`, 403 `forbidden` from `authorize`, which receives `ctx`, default the
 * request). Throws now when the kit has no runtime with `chat`.
 */
export function fetchChat<Ctx = Request>(kit: AskUserKit<Ctx>): (request: Request, ctx?: Ctx) => Promise<Response> {
  const serve = kit.serveChat();
  return async (request, ctx = request as unknown as Ctx) => {
    try {
      // The chat route answers every request it is given, so there is always a Response.
      return (await respondWeb(kit, request, plainResponder, (req, openSse) => serve(req, ctx, openSse)))!;
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/** A route handler as Next.js's App Router calls it: a `Request` in (its second argument, `{ params }`, unused), a `Response` out. */
export type RouteHandler = (request: Request, context?: unknown) => Promise<Response>;

/**
 * `GET` and `POST` for one catch-all route file (Next.js `app/api/[...ask]/route.ts`, or any host that
 * routes by method): `POST {prefix}/chat` runs the chat, `POST {prefix}/chat/continue` and
 * `GET {prefix}/interactions/pending` are the kit's routes, anything else under it is 404 JSON.
 * `authorize` receives the `Request`. Throws now when the kit has no runtime with `chat`.
 */
export function routeHandlers(kit: AskUserKit<Request>): { GET: RouteHandler; POST: RouteHandler; DELETE: RouteHandler } {
  const routes = fetchRoutes(kit);
  const chat = fetchChat(kit);
  const chatPath = `${kit.prefix}/chat`;
  const notFound = () => plainResponder.json(404, {}, { error: { code: 'not_found', message: 'No such route.' } });
  const handle: RouteHandler = async (request) => {
    if (request.method === 'POST' && new URL(request.url).pathname === chatPath) return chat(request);
    return (await routes(request)) ?? notFound();
  };
  // DELETE: a Web Push subscription (§13).
  return { GET: handle, POST: handle, DELETE: handle };
}

/**
 * An error as the contract's JSON `Response`, for a Fetch host's own routes (Next.js route handlers, Bun,
 * Deno): an `AskUserError` with its status and body, a client error with its status and fixed words,
 * anything else as 500 `internal_error`, logged with `log`. Never a stack or a path.
 */
export function errorResponse(err: unknown, log: (err: unknown) => void = (e) => console.error('[ask-user-kit]', e)): Response {
  const reply = publicError(err);
  if (reply.unexpected) log(err);
  return plainResponder.json(reply.status, {}, reply.body);
}

/** A chat stream for the host's own route: write on `sink`, return `response`. */
export function webSse(kit: Pick<AskUserKit, 'sseOptions'>, options: OpenSseOptions = {}): { sink: SseSink; response: Response } {
  return openWebSse({ ...kit.sseOptions, ...options });
}

/** The cross-site rule for the host's own routes: a 403 `forbidden` Response, or undefined to go on. */
export function crossSiteRefusal(request: Request, options: SameOriginOptions = {}): Response | undefined {
  if (!changesState(request.method)) return undefined;
  const err = crossSiteError(
    request.headers.get('origin') ?? undefined,
    request.headers.get('sec-fetch-site') ?? undefined,
    ownOriginOf(request),
    options.allowedOrigins,
  );
  if (!err) return undefined;
  return plainResponder.json(err.status, {}, err.toBody());
}
