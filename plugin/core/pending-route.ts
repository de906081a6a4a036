/** `GET {prefix}/interactions/pending` (docs/protocol.md §5): the session's open question, to restore its card. */
import type { PendingInteraction } from '../contract/schema.js';
import { userInputRequiredOf } from './coordinator.js';
import { storeError, type AuditContext } from './route-errors.js';
import { NO_STORE, querySessionId, type RouteShared } from './route-shared.js';
import type { RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
import { isPastExpiry } from '../store/types.js';

export function pendingRoute(deps: RoutesDeps, { refuseUncached, checkAuthorized, collectExpired }: RouteShared) {
  const { store, host, now } = deps;
  return async function pendingInteraction(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext = {};
    // Every answer of this route describes a moment (none, pending, expired, refused): never cached.
    try {
      const sessionId = querySessionId(req);
      known = { sessionId };
      await checkAuthorized(io, sessionId);
      const record = await store.currentOf(sessionId).catch(storeError);
      if (!record || record.sessionId !== sessionId) return { status: 200, headers: NO_STORE, body: { pending: null } };
      const expired = isPastExpiry(record, now());
      if (!expired && record.status !== 'pending') return { status: 200, headers: NO_STORE, body: { pending: null } };
      if (expired) await collectExpired(record).catch(storeError);
      const pending: PendingInteraction = {
        ...userInputRequiredOf(record),
        status: expired ? 'expired' : 'pending',
        resumable: expired ? false : await host.isResumable(record),
      };
      return { status: 200, headers: NO_STORE, body: { pending } };
    } catch (err) {
      return refuseUncached(err, known);
    }
  };
}
