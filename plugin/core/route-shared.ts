/**
 * What the routes share: answering a refusal (and auditing it), the caller check, collecting an overdue
 * question, and reading a session id from the query or a body's first problem.
 */
import type { z } from 'zod';
import { sessionIdSchema } from '../contract/schema.js';
import { AskUserError } from './errors.js';
import { auditRefusal, isStoreDown, type AuditContext } from './route-errors.js';
import type { JsonReply, RouteIo, RouteRequest, RoutesDeps } from './route-types.js';
import { isPastExpiry, type InteractionRecord } from '../store/types.js';

/** An answer that describes a moment (none, pending, a stream position, a refusal): never cached. */
export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** The `sessionId` query parameter, or 400 `invalid_request`. */
export function querySessionId(req: RouteRequest): string {
  const raw = req.query('sessionId');
  const parsed = sessionIdSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new AskUserError(
    'invalid_request',
    raw === undefined ? 'sessionId: required as a query parameter' : `sessionId: ${parsed.error.issues[0]!.message}`,
    { field: 'sessionId' },
  );
}

/** A body that does not fit its schema: 400 `invalid_request` naming its first problem's field. */
export function bodyError(error: z.ZodError): AskUserError {
  const issue = error.issues[0]!;
  const field = issue.path.map(String).join('.') || undefined;
  return new AskUserError('invalid_request', `${field ?? 'body'}: ${issue.message}`, field ? { field } : {});
}

export type RouteShared = ReturnType<typeof routeShared>;

export function routeShared({ audit, coordinator, now }: Pick<RoutesDeps, 'audit' | 'coordinator' | 'now'>) {
  /** `rejected` may be a function: the full context of a looked-up record is built only when refused. */
  const refusal = (err: AskUserError, rejected: AuditContext | (() => AuditContext), headers: Record<string, string> = {}): JsonReply => {
    const context = typeof rejected === 'function' ? rejected() : rejected;
    auditRefusal(audit, now, err, context);
    return { status: err.status, headers, body: err.toBody() };
  };

  const checkAuthorized = async (io: RouteIo, sessionId: string) => {
    if (!(await io.authorized(sessionId))) {
      throw new AskUserError('forbidden', 'This request is not allowed to act on that session.');
    }
  };

  /** A record past expiry that nobody closed yet is closed now (audited, run ended) before we answer. */
  const collectExpired = async (record: InteractionRecord) => {
    if (record.resolution) return;
    if (!isPastExpiry(record, now())) return;
    await coordinator.closeInteraction(record.requestId, 'expired');
  };

  /** A GET route's failure: its refusal (never cached), 503 when the store is down, else thrown on. */
  const refuseUncached = (err: unknown, known: AuditContext): JsonReply => {
    if (err instanceof AskUserError) return refusal(err, known, NO_STORE);
    if (isStoreDown(err))
      return refusal(new AskUserError('store_unavailable', 'The interaction store is unreachable; retry shortly.'), known, NO_STORE);
    throw err;
  };

  return { refusal, refuseUncached, checkAuthorized, collectExpired };
}
