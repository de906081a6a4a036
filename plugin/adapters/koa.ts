/**
 * Koa: the kit's routes as middleware, the chat stream on a Koa context, the cross-site rule for the
 * host's own routes, and the routes' JSON body reader.
 *
 *   app.use(koaRoutes(kit)).use(router.routes());
 *   router.post('/api/chat', koaChat(kit));
 */
import type { Middleware, ParameterizedContext } from 'koa';
import type { AskUserKit } from '../core/ask-user-kit.js';
import type { SseSink } from '../core/host.js';
import { openNodeSse } from '../core/node-sse.js';
import { publicError } from '../core/public-error.js';
import type { RouteRequest, RouteResult } from '../core/routes.js';
import { changesState, crossSiteError, type SameOriginOptions } from '../core/same-origin.js';
import type { OpenSseOptions } from '../core/sse-format.js';
import { readJsonBody } from './koa-json-body.js';
import { oneOrAll } from './request-shape.js';

export { readJsonBody } from './koa-json-body.js';

/** The server's own origin; Koa 3's `ctx.origin` is the request's Origin header, not this. */
const ownOrigin = (ctx: ParameterizedContext) => `${ctx.protocol}://${ctx.host}`;

function routeRequest(ctx: ParameterizedContext): RouteRequest {
  return {
    method: ctx.method,
    path: ctx.path,
    query: (name) => {
      const value = ctx.query[name];
      return typeof value === 'string' ? value : value === undefined ? undefined : oneOrAll(value);
    },
    header: (name) => ctx.get(name) || undefined,
    ownOrigin: ownOrigin(ctx),
    readJson: () => readJsonBody(ctx),
  };
}

/**
 * Koa middleware serving `POST {prefix}/chat/continue` and `GET {prefix}/interactions/pending` (405 for
 * another method); other paths go on to `next`. Throws now when the kit has no `authorize` policy.
 */
export function koaRoutes(kit: AskUserKit<ParameterizedContext>): Middleware {
  const serve = kit.serveRoutes();
  return async function askUserRoutes(ctx, next) {
    const result = await serve(routeRequest(ctx), ctx, () => koaSse(kit, ctx));
    if (result === undefined) return next();
    reply(ctx, result);
  };
}

/**
 * `POST /api/chat` on the kit's runtime: the chat stream, or the JSON error of a refusal (cross-site,
 * bad body, 400 `invalid_request`, 403 `forbidden` from `authorize`, which receives this context).
 * Throws now when the kit has no runtime with `chat`.
 */
export function koaChat(kit: AskUserKit<ParameterizedContext>): Middleware {
  const serve = kit.serveChat();
  return async function askUserChat(ctx) {
    reply(ctx, await serve(routeRequest(ctx), ctx, () => koaSse(kit, ctx)));
  };
}

function reply(ctx: ParameterizedContext, result: RouteResult): void {
  if (result === undefined || result === 'streamed') return;
  ctx.set(result.headers as Record<string, string>);
  // 204 (§11: nothing to replay) has no body; Koa turns a null body into exactly that.
  if (result.status === 204) ctx.body = null;
  else ctx.body = result.html ?? result.body;
  ctx.status = result.status;
}

/**
 * The chat stream on `ctx` (docs/protocol.md §3): Koa hands the response over (`ctx.respond = false`) so
 * no compression or body middleware can buffer it.
 */
export function koaSse(kit: Pick<AskUserKit, 'sseOptions'>, ctx: ParameterizedContext, options: OpenSseOptions = {}): SseSink {
  // Compression middleware checks this flag; with `respond = false` there is no body to wrap anyway.
  (ctx as { compress?: boolean }).compress = false;
  ctx.respond = false;
  return openNodeSse(ctx.req, ctx.res, { ...kit.sseOptions, ...options });
}

/** The cross-site rule (plugin/core/same-origin.ts) for the host's own state-changing routes: 403 `forbidden`. */
export function sameOriginOnly(options: SameOriginOptions = {}): Middleware {
  const { allowedOrigins = [] } = options;
  return async function sameOrigin(ctx, next) {
    const err = changesState(ctx.method)
      ? crossSiteError(ctx.get('origin') || undefined, ctx.get('sec-fetch-site') || undefined, ownOrigin(ctx), allowedOrigins)
      : undefined;
    if (!err) return next();
    ctx.status = err.status;
    ctx.body = err.toBody();
  };
}

/**
 * Errors of the routes after it as the contract's JSON body: an `AskUserError` with its status and body, a
 * client error (`ctx.throw(400)`, a body parser's) with its status and fixed words, anything else as 500
 * `internal_error` (and to `app.on('error')`). Never a stack or a path. Mount it first.
 */
export function koaErrors(): Middleware {
  return async function askUserErrors(ctx, next) {
    try {
      await next();
    } catch (err) {
      const reply = publicError(err);
      if (reply.unexpected || ctx.headerSent) ctx.app.emit('error', err, ctx);
      if (ctx.headerSent) return;
      ctx.status = reply.status;
      ctx.body = reply.body;
    }
  };
}
