/**
 * Express 5: the kit's routes as middleware, the chat stream on an Express response, and the
 * cross-site rule for the host's own routes. Mount the routes at the app's root: the kit's `prefix`
 * decides their paths.
 *
 *   app.use(expressRoutes(kit));
 *   app.post('/api/chat', expressChat(kit));
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { AskUserKit } from '../core/ask-user-kit.js';
import type { SseSink } from '../core/host.js';
import { openNodeSse } from '../core/node-sse.js';
import { publicError } from '../core/public-error.js';
import type { RouteRequest, RouteResult } from '../core/routes.js';
import { changesState, crossSiteError, type SameOriginOptions } from '../core/same-origin.js';
import type { OpenSseOptions } from '../core/sse-format.js';
import { readExpressJson } from './express-json-body.js';
import { headerValue, oneOrAll } from './request-shape.js';

export { readExpressJson } from './express-json-body.js';

const ownOrigin = (req: Request) => `${req.protocol}://${req.get('host') ?? ''}`;

function routeRequest(req: Request, res: Response): RouteRequest {
  return {
    method: req.method,
    // Not `req.path`: under `app.use('/x', …)` it loses the mount path, and the prefix names whole paths.
    path: new URL(req.originalUrl, 'http://localhost').pathname,
    query: (name) => {
      const value = (req.query as Record<string, unknown>)[name];
      if (typeof value === 'string') return value;
      return Array.isArray(value) ? oneOrAll(value.map(String)) : value === undefined ? undefined : String(value);
    },
    header: (name) => headerValue(req.headers[name]),
    ownOrigin: ownOrigin(req),
    readJson: () => readExpressJson(req, res),
  };
}

/** Middleware serving the kit's two routes; other paths go on. `authorize` receives Express's request. */
export function expressRoutes(kit: AskUserKit<Request>): RequestHandler {
  const serve = kit.serveRoutes();
  return function askUserRoutes(req, res, next) {
    serve(routeRequest(req, res), req, () => expressSse(kit, req, res)).then((result) => {
      if (result === undefined) return next();
      reply(res, result);
    }, next);
  };
}

/**
 * `POST /api/chat` on the kit's runtime: the chat stream, or the JSON error of a refusal (cross-site,
 * bad body, 400 `invalid_request`, 403 `forbidden` from `authorize`, which receives this request).
 * Throws now when the kit has no runtime with `chat`.
 */
export function expressChat(kit: AskUserKit<Request>): RequestHandler {
  const serve = kit.serveChat();
  return function askUserChat(req, res, next) {
    serve(routeRequest(req, res), req, () => expressSse(kit, req, res)).then((result) => reply(res, result), next);
  };
}

function reply(res: Response, result: RouteResult): void {
  if (result === undefined || result === 'streamed') return;
  res.status(result.status).set(result.headers);
  // 204 (§11: nothing to replay) has no body at all.
  if (result.status === 204) res.end();
  else if (result.html !== undefined) res.send(result.html);
  else res.json(result.body);
}

/** The chat stream on `res` (docs/protocol.md §3), written to the socket as events are sent. */
export function expressSse(kit: Pick<AskUserKit, 'sseOptions'>, req: Request, res: Response, options: OpenSseOptions = {}): SseSink {
  return openNodeSse(req, res, { ...kit.sseOptions, ...options });
}

/** The cross-site rule (plugin/core/same-origin.ts) for the host's own state-changing routes: 403 `forbidden`. */
export function sameOriginOnly(options: SameOriginOptions = {}): RequestHandler {
  const { allowedOrigins = [] } = options;
  return function sameOrigin(req, res, next) {
    const err = changesState(req.method)
      ? crossSiteError(headerValue(req.headers.origin), headerValue(req.headers['sec-fetch-site']), ownOrigin(req), allowedOrigins)
      : undefined;
    if (!err) return next();
    res.status(err.status).json(err.toBody());
  };
}

/**
 * Errors of the routes before it as the contract's JSON body, instead of Express's HTML page with the stack:
 * an `AskUserError` with its status and body, a client error (a body parser's) with its status and fixed
 * words, anything else as 500 `internal_error`, logged with `log`. Mount it last.
 */
export function expressErrors(log: (err: unknown) => void = (err) => console.error('[ask-user-kit]', err)): ErrorRequestHandler {
  return function askUserErrors(err, _req, res, next) {
    const reply = publicError(err);
    if (reply.unexpected) log(err);
    // A stream already under way cannot turn into a JSON answer: Express closes it.
    if (res.headersSent) return next(err);
    res.status(reply.status).json(reply.body);
  };
}
