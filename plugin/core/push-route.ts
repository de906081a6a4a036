/**
 * The Web Push routes (contract §13): a page subscribes its browser for a session, unsubscribes it, and
 * reads the VAPID public key to subscribe with.
 *
 *   POST   {prefix}/push/subscriptions     { sessionId, subscription }  201 (new) or 200 (refreshed) { ok: true }
 *   DELETE {prefix}/push/subscriptions     { sessionId, endpoint }      200 { removed }
 *   GET    {prefix}/push/vapid-public-key                               200 { publicKey }
 *
 * Subscribing and unsubscribing are owner-bound as continue is, in the same order: cross-site browser
 * request (403 forbidden) → body (400/413/415) → authorize (403 forbidden) → endpoint guard, which
 * resolves the host (400 `invalid_request` on `subscription.endpoint`) → store (503 when unreachable). The
 * guard runs after authorization, so a stranger cannot use the route to learn where names resolve. The
 * public key is the same for everyone and needs no session.
 */
import { z } from 'zod';
import { sessionIdSchema } from '../contract/schema.js';
import { EndpointRefusedError, MAX_ENDPOINT_LENGTH } from '../notify/push/endpoint-guard.js';
import { pushSubscriptionSchema } from '../notify/push/push-subscriptions.js';
import { AskUserError } from './errors.js';
import { storeError, type AuditContext } from './route-errors.js';
import { bodyError, NO_STORE, type RouteShared } from './route-shared.js';
import type { PushRouteService, RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
import { crossSiteError } from './same-origin.js';

/** The routes' paths under the kit's prefix. */
export const PUSH_PATHS = { subscriptions: '/push/subscriptions', vapidPublicKey: '/push/vapid-public-key' } as const;

const subscribeBodySchema = z.object({ sessionId: sessionIdSchema, subscription: pushSubscriptionSchema });
const unsubscribeBodySchema = z.object({
  sessionId: sessionIdSchema,
  endpoint: z.string().min(1).max(MAX_ENDPOINT_LENGTH, `at most ${MAX_ENDPOINT_LENGTH} characters`),
});

export function pushRoutes(
  deps: Pick<RoutesDeps, 'store' | 'allowedOrigins' | 'now'>,
  { refuseUncached, checkAuthorized }: Pick<RouteShared, 'refuseUncached' | 'checkAuthorized'>,
  push: PushRouteService,
) {
  const { store, allowedOrigins, now } = deps;

  /** The cross-site rule, the body against `schema`, then the caller: what both changes check first. */
  async function admit<T extends { sessionId: string }>(
    req: RouteRequest,
    io: RouteIo,
    schema: z.ZodType<T>,
    known: { context: AuditContext },
  ): Promise<T> {
    const crossSite = crossSiteError(req.header('origin'), req.header('sec-fetch-site'), req.ownOrigin, allowedOrigins);
    if (crossSite) throw crossSite;
    const raw = await req.readJson();
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      // The session is logged only once it is well-formed, so nothing arbitrary reaches the audit trail.
      const sessionId = sessionIdSchema.safeParse((raw as { sessionId?: unknown } | undefined)?.sessionId);
      if (sessionId.success) known.context = { sessionId: sessionId.data };
      throw bodyError(parsed.error);
    }
    known.context = { sessionId: parsed.data.sessionId };
    await checkAuthorized(io, parsed.data.sessionId);
    return parsed.data;
  }

  async function subscribePush(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    const known = { context: {} as AuditContext };
    try {
      const { sessionId, subscription } = await admit(req, io, subscribeBodySchema, known);
      const { expirationTime } = subscription;
      if (expirationTime !== undefined && expirationTime !== null && expirationTime <= now()) {
        throw new AskUserError('invalid_request', 'subscription.expirationTime: already passed', { field: 'subscription.expirationTime' });
      }
      const outcome = await push.subscribe(store, sessionId, subscription).catch((err: unknown) => {
        if (err instanceof EndpointRefusedError) {
          // The guard's words only: the endpoint itself is never quoted back.
          throw new AskUserError('invalid_request', `subscription.endpoint: ${err.message}`, { field: 'subscription.endpoint' });
        }
        return storeError(err);
      });
      return { status: outcome === 'created' ? 201 : 200, headers: NO_STORE, body: { ok: true } };
    } catch (err) {
      return refuseUncached(err, known.context);
    }
  }

  async function unsubscribePush(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    const known = { context: {} as AuditContext };
    try {
      const { sessionId, endpoint } = await admit(req, io, unsubscribeBodySchema, known);
      const removed = await push.unsubscribe(store, sessionId, endpoint).catch(storeError);
      return { status: 200, headers: NO_STORE, body: { removed } };
    } catch (err) {
      return refuseUncached(err, known.context);
    }
  }

  async function vapidPublicKey(): Promise<RouteResult> {
    try {
      const publicKey = await push.publicKey(store).catch(storeError);
      return { status: 200, headers: NO_STORE, body: { publicKey } };
    } catch (err) {
      return refuseUncached(err, {});
    }
  }

  return { subscribePush, unsubscribePush, vapidPublicKey };
}
