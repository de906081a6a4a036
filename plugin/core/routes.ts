/**
 * The kit's routes, free of any framework: an adapter (plugin/adapters/) turns its request into a
 * `RouteRequest`, gives the route its caller's authorization and an SSE sink on its response, and writes
 * the `JsonReply` back. continue-route.ts, pending-route.ts and stream-route.ts (follow and stop, contract §11) hold them; this file dispatches.
 */
import { continueRoute } from './continue-route.js';
import { pendingRoute } from './pending-route.js';
import { routeShared } from './route-shared.js';
import { streamRoutes } from './stream-route.js';
import { ANSWER_PATH, answerPageRoute } from './answer-page-route.js';
import { PUSH_PATHS, pushRoutes } from './push-route.js';
import type { JsonReply, RouteHandler, RoutesDeps } from './route-types.js';

export type { JsonReply, RouteHandler, RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
export { receiptOf } from './route-errors.js';

export function createRoutes(deps: RoutesDeps): RouteHandler {
  const prefix = deps.prefix.replace(/\/+$/, '');
  const continuePath = `${prefix}/chat/continue`;
  const pendingPath = `${prefix}/interactions/pending`;
  const streamPath = `${prefix}/chat/stream`;
  const stopPath = `${prefix}/chat/stop`;
  const shared = routeShared(deps);
  const continueInteraction = continueRoute(deps, shared);
  const pendingInteraction = pendingRoute(deps, shared);
  const { followStream, stopRun } = streamRoutes(deps, shared);
  const answerLinkPage = answerPageRoute(deps);
  const push = deps.push ? pushRoutes(deps, shared, deps.push) : undefined;
  const pushSubscriptionsPath = `${prefix}${PUSH_PATHS.subscriptions}`;
  const vapidKeyPath = `${prefix}${PUSH_PATHS.vapidPublicKey}`;

  const methodNotAllowed = (allow: string): JsonReply => ({
    status: 405,
    headers: { Allow: allow },
    body: { error: { code: 'invalid_request', message: `Use ${allow} on this route.` } },
  });

  return async function askUserRoutes(req, io) {
    if (req.path === continuePath) return req.method === 'POST' ? continueInteraction(req, io) : methodNotAllowed('POST');
    if (req.path === streamPath) return req.method === 'GET' ? followStream(req, io) : methodNotAllowed('GET');
    if (req.path === stopPath) return req.method === 'POST' ? stopRun(req, io) : methodNotAllowed('POST');
    if (req.path === pendingPath)
      return req.method === 'GET' || req.method === 'HEAD' ? pendingInteraction(req, io) : methodNotAllowed('GET, HEAD');
    if (push && req.path === pushSubscriptionsPath) {
      if (req.method === 'POST') return push.subscribePush(req, io);
      return req.method === 'DELETE' ? push.unsubscribePush(req, io) : methodNotAllowed('POST, DELETE');
    }
    if (push && req.path === vapidKeyPath)
      return req.method === 'GET' || req.method === 'HEAD' ? push.vapidPublicKey() : methodNotAllowed('GET, HEAD');
    // An answer link's page (§13) sits at the root of the public origin, whatever the prefix.
    if (deps.answerLinks && req.path.startsWith(ANSWER_PATH))
      return req.method === 'GET' || req.method === 'HEAD' ? answerLinkPage(req) : methodNotAllowed('GET, HEAD');
    return undefined;
  };
}
