/**
 * `POST {prefix}/chat/continue` and `GET {prefix}/interactions/pending` (docs/protocol.md §4, §5).
 *
 * Order of checks on continue, each before anything is consumed:
 *   cross-site browser request (403 forbidden) → body (400/413/415) → authorize (403 forbidden) → lookup (404) → owner (403 session_mismatch) →
 *   already closed (409 already_answered + receipt) → past expiry (410) → host can resume (409
 *   not_resumable) → answer fits the stored form (422) → atomic claim (one winner; losers 409/410).
 * Only the claim consumes the interaction, so every refusal leaves it pending and a retry is safe.
 *
 * Body transport decisions (the contract names only 400 for a malformed body):
 *   - a body over 64 KiB is refused with 413 and code `invalid_request` (the status says why, the code
 *     stays one of the contract's);
 *   - a body that is not JSON by Content-Type is refused with 415 and code `invalid_request`;
 *   - a missing body, unparsable JSON or a body not matching `continueBodySchema` is 400 `invalid_request`.
 */
import { Router } from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import { checkAnswer, type AnswerProblem } from './contract/answer-rules.js';
import { recordEntry, type AuditEntry, type AuditLogger } from './audit.js';
import { AskUserError, type Receipt } from './errors.js';
import { userInputRequiredOf, type Coordinator } from './coordinator.js';
import { answerToolResultText, CANCEL_ANSWER } from './contract/tool-result.js';
import { openSse, type OpenSseOptions } from './sse-writer.js';
import { readJsonBody } from './json-body.js';
import { continueBodySchema, requestIdSchema, sessionIdSchema, type Answer, type PendingInteraction } from './contract/schema.js';
import type { RunHost } from './host.js';
import { StoreUnavailableError, type InteractionRecord, type PendingStore } from './store/types.js';

import type { Authorize } from './authorization.js';
import { assertSameOrigin } from './same-origin.js';

export type { Authorize } from './authorization.js';

export interface RoutesDeps {
  store: PendingStore;
  host: RunHost;
  coordinator: Coordinator;
  audit: AuditLogger;
  prefix: string;
  authorize: Authorize;
  /** Front-end origins besides the server's own that may POST continue. */
  allowedOrigins: readonly string[];
  heartbeatMs: number;
  now: () => number;
  sseTimers?: OpenSseOptions['timers'];
  onError: (err: unknown, ctx?: ParameterizedContext) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function receiptOf(record: InteractionRecord): Receipt {
  const status = record.resolution?.status ?? (record.status === 'pending' ? 'expired' : record.status);
  return { requestId: record.requestId, toolCallId: record.toolCallId, status, at: iso(record.resolution?.at ?? record.expiresAt) };
}

const isStoreDown = (err: unknown) =>
  err instanceof StoreUnavailableError || (err as { code?: unknown } | null)?.code === 'store_unavailable';

/** Anything the store threw that means "unreachable" becomes the contract's 503. */
function storeError(err: unknown): never {
  if (isStoreDown(err)) {
    throw new AskUserError('store_unavailable', 'The interaction store is unreachable; nothing was consumed, retry shortly.', { cause: err });
  }
  throw err;
}

/**
 * The rules' messages for these two quote the offending selection; a selection is client input that
 * may be anything, and error messages (which reach logs) never repeat input.
 */
function safeAnswerMessage(problem: AnswerProblem, message: string): string {
  if (problem === 'unknown_option') return 'A selection is not an option id of this question; send ids from `options[].id`.';
  if (problem === 'duplicate_selection') return 'An option id is selected more than once; send each id once.';
  return message;
}



/** What a `rejected` audit entry says about the request, beyond event, time and reason. */
type AuditContext = Omit<AuditEntry, 'event' | 'at' | 'reason'>;

function auditContext(record: InteractionRecord, sessionId: string, answer: Answer): AuditContext {
  const { event: _event, at: _at, ...rest } = recordEntry('rejected', record, 0, { sessionId, answer });
  return rest;
}

const expiredError = () => new AskUserError('expired', 'This question expired before it was answered; ask again in a new message.');

const CLOSED_MESSAGES: Record<string, string> = {
  answered: 'This question was already answered.',
  cancelled: 'This question was already cancelled.',
  superseded: 'This question was replaced by a newer message and can no longer be answered.',
};

/** 409 with the first resolution's receipt, or 410 when what closed it was the expiry. */
function closedError(record: InteractionRecord): AskUserError {
  const receipt = receiptOf(record);
  if (receipt.status === 'expired') return expiredError();
  return new AskUserError('already_answered', CLOSED_MESSAGES[receipt.status] ?? 'This question is already closed.', { receipt });
}

export function createRoutes(deps: RoutesDeps): Middleware {
  const { store, host, coordinator, audit, authorize, allowedOrigins, heartbeatMs, now, sseTimers, onError } = deps;
  const prefix = deps.prefix.replace(/\/+$/, '');
  const router = new Router();

  const respondError = (ctx: ParameterizedContext, err: AskUserError, rejected: AuditContext) => {
    audit.audit({ event: 'rejected', at: iso(now()), ...rejected, reason: err.code, detail: err.message });
    ctx.status = err.status;
    ctx.body = err.toBody();
  };

  const checkAuthorized = async (ctx: ParameterizedContext, sessionId: string) => {
    if (!(await authorize(ctx, sessionId))) {
      throw new AskUserError('forbidden', 'This request is not allowed to act on that session.');
    }
  };

  /** A record past expiry that nobody closed yet is closed now (audited, run ended) before we answer. */
  const collectExpired = async (record: InteractionRecord) => {
    if (record.resolution) return;
    if (record.status !== 'expired' && record.expiresAt > now()) return;
    await coordinator.closeInteraction(record.requestId, 'expired');
  };

  router.post(`${prefix}/chat/continue`, async function continueInteraction(ctx) {
    let known: AuditContext = {};
    try {
      // Before the body is read: a page on another site learns nothing, not even whether its body parsed.
      assertSameOrigin(ctx, allowedOrigins);
      const parsed = continueBodySchema.safeParse(await readJsonBody(ctx));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.map(String).join('.') || undefined;
        const raw = ctx.request.body as Record<string, unknown> | undefined;
        // Ids are logged only once they are well-formed, so nothing arbitrary reaches the audit trail.
        const sessionId = sessionIdSchema.safeParse(raw?.sessionId);
        const requestId = requestIdSchema.safeParse(raw?.requestId);
        if (sessionId.success) known.sessionId = sessionId.data;
        if (requestId.success) known.requestId = requestId.data;
        throw new AskUserError('invalid_request', `${field ?? 'body'}: ${issue.message}`, field ? { field } : {});
      }
      const body = parsed.data;
      known = { sessionId: body.sessionId, requestId: body.requestId };
      await checkAuthorized(ctx, body.sessionId);

      const record = await store.get(body.requestId).catch(storeError);
      if (!record) throw new AskUserError('not_found', 'No interaction has this requestId (unknown, or past retention).', { field: 'requestId' });
      const answer: Answer = body.cancelled ? CANCEL_ANSWER : { selections: body.selections, customInput: body.customInput, cancelled: false };
      known = auditContext(record, body.sessionId, answer);
      if (record.sessionId !== body.sessionId) {
        throw new AskUserError('session_mismatch', 'This requestId belongs to another session.', { field: 'sessionId' });
      }
      if (record.resolution || (record.status !== 'pending' && record.status !== 'expired')) throw closedError(record);
      if (record.status === 'expired' || record.expiresAt <= now()) {
        await collectExpired(record).catch(storeError);
        throw expiredError();
      }
      if (!(await host.isResumable(record))) {
        // A duplicate may have read the record just before another submission claimed it and resumed the
        // run; the run then no longer waits on it. Read again so that duplicate gets its receipt, not
        // "restarted".
        const fresh = await store.get(record.requestId).catch(storeError);
        if (fresh?.resolution) throw closedError(fresh);
        if (fresh && (fresh.status === 'expired' || fresh.expiresAt <= now())) throw expiredError();
        throw new AskUserError('not_resumable', 'The paused run cannot be continued by this server (it was restarted); start the task again.');
      }
      if (!body.cancelled) {
        const check = checkAnswer(record.form, body);
        if (!check.ok) throw new AskUserError('invalid_answer', safeAnswerMessage(check.problem, check.message), { field: check.field });
      }

      const at = now();
      const status = body.cancelled ? 'cancelled' : 'answered';
      const outcome = await store.claim(record.requestId, { status, at, answer }).catch(storeError);
      if (!outcome.ok) {
        if (outcome.reason === 'not_found') throw new AskUserError('not_found', 'No interaction has this requestId.', { field: 'requestId' });
        if (outcome.reason === 'expired') {
          await collectExpired(outcome.record).catch(storeError);
          throw expiredError();
        }
        throw closedError(outcome.record);
      }

      const claimed = outcome.record;
      coordinator.clearTimer(claimed.requestId);
      audit.audit(recordEntry(status, claimed, at, { answer }));
      const sse = openSse(ctx, { heartbeatMs, ...(sseTimers ? { timers: sseTimers } : {}) });
      sse.send('interaction_resolved', {
        requestId: claimed.requestId,
        toolCallId: claimed.toolCallId,
        status,
        at: iso(at),
        selections: [...answer.selections],
        customInputLength: answer.customInput.length,
      });
      try {
        await host.resume({ record: claimed, answer, toolResultContent: answerToolResultText(answer), sse });
      } catch (err) {
        // The answer is recorded; the run failed after it. Say so on the stream, log the cause server-side.
        onError(err, ctx);
        sse.send('error', { code: isStoreDown(err) ? 'store_unavailable' : 'internal_error', message: 'The run could not continue after your answer was recorded.' });
        sse.send('done', { reason: 'error' });
      } finally {
        sse.end();
      }
    } catch (err) {
      if (!(err instanceof AskUserError)) {
        if (isStoreDown(err)) return respondError(ctx, new AskUserError('store_unavailable', 'The interaction store is unreachable; nothing was consumed, retry shortly.'), known);
        throw err;
      }
      respondError(ctx, err, known);
    }
  });

  router.get(`${prefix}/interactions/pending`, async function pendingInteraction(ctx) {
    let known: AuditContext = {};
    // Every answer of this route describes a moment (none, pending, expired, refused): never cached.
    ctx.set('Cache-Control', 'no-store');
    try {
      const raw = ctx.query.sessionId;
      const parsed = sessionIdSchema.safeParse(raw);
      if (!parsed.success) {
        throw new AskUserError('invalid_request', raw === undefined ? 'sessionId: required as a query parameter' : `sessionId: ${parsed.error.issues[0]!.message}`, { field: 'sessionId' });
      }
      const sessionId = parsed.data;
      known = { sessionId };
      await checkAuthorized(ctx, sessionId);
      const record = await store.currentOf(sessionId).catch(storeError);
      if (!record || record.sessionId !== sessionId) {
        ctx.body = { pending: null };
        return;
      }
      const expired = record.status === 'expired' || (record.status === 'pending' && record.expiresAt <= now());
      if (!expired && record.status !== 'pending') {
        ctx.body = { pending: null };
        return;
      }
      if (expired) await collectExpired(record).catch(storeError);
      const pending: PendingInteraction = {
        ...userInputRequiredOf(record),
        status: expired ? 'expired' : 'pending',
        resumable: expired ? false : await host.isResumable(record),
      };
      ctx.body = { pending };
    } catch (err) {
      if (err instanceof AskUserError) return respondError(ctx, err, known);
      if (isStoreDown(err)) return respondError(ctx, new AskUserError('store_unavailable', 'The interaction store is unreachable; retry shortly.'), known);
      throw err;
    }
  });

  const routes = router.routes();
  const allowed = router.allowedMethods();
  return async function askUserRoutes(ctx, next) {
    await routes(ctx as never, () => allowed(ctx as never, next));
  };
}
