/** `GET {prefix}/interactions/pending` (docs/protocol.md §5): the session's open question, to restore its card. */
import { sessionIdSchema, type PendingInteraction } from '../contract/schema.js';
import { userInputRequiredOf } from './coordinator.js';
import { AskUserError } from './errors.js';
import { isStoreDown, storeError, type AuditContext } from './route-errors.js';
import type { RouteShared } from './route-shared.js';
import type { RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
import { isPastExpiry } from '../store/types.js';

/** Every answer of this route describes a moment (none, pending, expired, refused): never cached. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export function pendingRoute(deps: RoutesDeps, { refusal, checkAuthorized, collectExpired }: RouteShared) {
  const { store, host, now } = deps;
  return async function pendingInteraction(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext = {};
    // Every answer of this route describes a moment (none, pending, expired, refused): never cached.
    try {
      const raw = req.query('sessionId');
      const parsed = sessionIdSchema.safeParse(raw);
      if (!parsed.success) {
        throw new AskUserError(
          'invalid_request',
          raw === undefined ? 'sessionId: required as a query parameter' : `sessionId: ${parsed.error.issues[0]!.message}`,
          { field: 'sessionId' },
        );
      }
      const sessionId = parsed.data;
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
      if (err instanceof AskUserError) return refusal(err, known, NO_STORE);
      if (isStoreDown(err))
        return refusal(new AskUserError('store_unavailable', 'The interaction store is unreachable; retry shortly.'), known, NO_STORE);
      throw err;
    }
  };
}
