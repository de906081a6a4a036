/** What both routes share: answering a refusal (and auditing it), the caller check, and collecting an overdue question. */
import { AskUserError } from './errors.js';
import { auditRefusal, type AuditContext } from './route-errors.js';
import type { JsonReply, RouteIo, RoutesDeps } from './route-types.js';
import { isPastExpiry, type InteractionRecord } from '../store/types.js';

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

  return { refusal, checkAuthorized, collectExpired };
}
