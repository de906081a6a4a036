/**
 * `POST {prefix}/chat/continue` (docs/protocol.md §4): one answer, consumed exactly once.
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
import { checkContinue } from '../contract/answer-rules.js';
import { answerToolResultText, cancelAnswerFor } from '../contract/tool-result.js';
import { continueBodySchema, requestIdSchema, sessionIdSchema, type Answer } from '../contract/schema.js';
import { decisionEntries, recordEntry } from './audit.js';
import { checkDecisions, type ApprovalDecision } from '../contract/approval.js';
import { interactionResolvedOf } from './coordinator.js';
import { AskUserError } from './errors.js';
import { crossSiteError } from './same-origin.js';
import {
  auditContext,
  claimUnconfirmed,
  closedError,
  expiredError,
  isStoreDown,
  safeAnswerMessage,
  storeError,
  type AuditContext,
} from './route-errors.js';
import { bodyError, type RouteShared } from './route-shared.js';
import type { RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
import { isPastExpiry, type InteractionRecord, type Resolution } from '../store/types.js';
import { createHash } from 'node:crypto';
import { RunStream } from './run-stream.js';
import { LogFollower } from './stream-route.js';

/** `Idempotency-Key` (contract §11): 1–64 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,64}$/;

export function continueRoute(deps: RoutesDeps, { refusal, checkAuthorized, collectExpired }: RouteShared) {
  const { store, host, coordinator, audit, allowedOrigins, now, onError } = deps;
  const log = coordinator.log;

  /**
   * A closed record: a retry of the continue that closed it (same key, same body) gets that continue's
   * stream again from the log; anything else gets §4's 409 with the receipt.
   */
  const replayOrClosed = async (record: InteractionRecord, retry: Resolution['retry'], io: RouteIo): Promise<RouteResult> => {
    const first = record.resolution?.retry;
    if (!retry || !first || first.key !== retry.key || first.digest !== retry.digest) throw closedError(record);
    const follower = new LogFollower(log, record.sessionId, { inFlight: host.inFlight?.bind(host) });
    await follower.start().catch(storeError);
    const read = first.after ? await log.read(record.sessionId, first.after).catch(storeError) : { kind: 'expired' as const };
    if (read.kind === 'expired') {
      follower.stopWatching();
      throw closedError(record);
    }
    // Only the frames of the continue's own run.
    const frames = read.frames.filter((frame) => frame.runId === first.after!.runId);
    await follower.follow(io.openSse(), frames, first.after);
    return 'streamed';
  };

  /** The token opens this card of this session, or 403 (the same words whatever is wrong: a guess learns nothing). */
  const checkAnswerToken = async (token: string, body: { sessionId: string; requestId: string }): Promise<void> => {
    const target = deps.answerLinks ? await deps.answerLinks.links.resolve(token).catch(storeError) : undefined;
    if (!target || target.requestId !== body.requestId || target.sessionId !== body.sessionId) throw linkRefused();
  };

  return async function continueInteraction(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext | (() => AuditContext) = {};
    try {
      // Before the body is read: a page on another site learns nothing, not even whether its body parsed.
      const crossSite = crossSiteError(req.header('origin'), req.header('sec-fetch-site'), req.ownOrigin, allowedOrigins);
      if (crossSite) throw crossSite;
      const raw = await req.readJson();
      const parsed = continueBodySchema.safeParse(raw);
      if (!parsed.success) {
        const fields = raw as Record<string, unknown> | undefined;
        // Ids are logged only once they are well-formed, so nothing arbitrary reaches the audit trail.
        const sessionId = sessionIdSchema.safeParse(fields?.sessionId);
        const requestId = requestIdSchema.safeParse(fields?.requestId);
        known = {
          ...(sessionId.success ? { sessionId: sessionId.data } : {}),
          ...(requestId.success ? { requestId: requestId.data } : {}),
        };
        throw bodyError(parsed.error);
      }
      const body = parsed.data;
      known = { sessionId: body.sessionId, requestId: body.requestId };
      const key = req.header('idempotency-key');
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw new AskUserError('invalid_request', 'Idempotency-Key: 1-64 visible ASCII characters', { field: 'Idempotency-Key' });
      }
      // The digest of the body as parsed: a retry must send the same answer to be answered like the first.
      const retry: Resolution['retry'] =
        key === undefined ? undefined : { key, digest: createHash('sha256').update(JSON.stringify(body)).digest('base64url') };
      // An answer link's token stands in for the owner's credentials, for its one card only (§13).
      if (body.answerToken !== undefined) await checkAnswerToken(body.answerToken, body);
      else await checkAuthorized(io, body.sessionId);

      const record = await store.get(body.requestId).catch(storeError);
      if (!record)
        throw new AskUserError('not_found', 'No interaction has this requestId (unknown, or past retention).', { field: 'requestId' });
      // A link opens a card while it waits: a closed one is nothing it may act on, not even to learn its receipt.
      if (body.answerToken !== undefined && record.resolution) throw linkRefused();
      const answer: Answer = body.cancelled
        ? cancelAnswerFor(record.form)
        : body.decisions !== undefined
          ? { selections: [], customInput: '', cancelled: false, decisions: body.decisions as ApprovalDecision[] }
          : body.answers !== undefined
            ? { selections: [], customInput: '', cancelled: false, answers: body.answers }
            : { selections: body.selections ?? [], customInput: body.customInput ?? '', cancelled: false };
      known = () => auditContext(record, body.sessionId, answer);
      if (record.sessionId !== body.sessionId) {
        throw new AskUserError('session_mismatch', 'This requestId belongs to another session.', { field: 'sessionId' });
      }
      if (record.resolution || (record.status !== 'pending' && record.status !== 'expired')) return await replayOrClosed(record, retry, io);
      if (isPastExpiry(record, now())) {
        await collectExpired(record).catch(storeError);
        throw expiredError();
      }
      if (!(await host.isResumable(record))) {
        // A duplicate may have read the record just before another submission claimed it and resumed the
        // run; the run then no longer waits on it. Read again so that duplicate gets its receipt, not
        // "restarted".
        const fresh = await store.get(record.requestId).catch(storeError);
        if (fresh?.resolution) return await replayOrClosed(fresh, retry, io);
        if (fresh && isPastExpiry(fresh, now())) throw expiredError();
        throw new AskUserError(
          'not_resumable',
          'The paused run cannot be continued by this server (it was restarted); start the task again.',
        );
      }
      if (!body.cancelled) {
        if (record.form.approvals !== undefined || body.decisions !== undefined) {
          // An approval card (§12) takes decisions, and only it does.
          const check = record.form.approvals
            ? checkDecisions(record.form.approvals, body.decisions)
            : ({ ok: false, field: 'decisions', message: 'this card asks a question, not for approval' } as const);
          if (!check.ok) throw new AskUserError('invalid_answer', `${check.field}: ${check.message}`, { field: check.field });
        } else {
          const check = checkContinue(record.form, body);
          if (!check.ok) throw new AskUserError('invalid_answer', safeAnswerMessage(check.problem, check.message), { field: check.field });
        }
      }

      const at = now();
      const status = body.cancelled ? 'cancelled' : 'answered';
      // Where the continue's frames go on in the log (§11), kept with the answer for a retry's replay.
      const after = host.streamOf ? await host.streamOf(record).catch(storeError) : undefined;
      const resolution: Resolution = { status, at, answer, ...(retry ? { retry: { ...retry, ...(after ? { after } : {}) } } : {}) };
      const outcome = await store.claim(record.requestId, resolution).catch(claimUnconfirmed);
      if (!outcome.ok) {
        if (outcome.reason === 'not_found')
          throw new AskUserError('not_found', 'No interaction has this requestId.', { field: 'requestId' });
        if (outcome.reason === 'expired') {
          await collectExpired(outcome.record).catch(storeError);
          throw expiredError();
        }
        return await replayOrClosed(outcome.record, retry, io);
      }

      const claimed = outcome.record;
      coordinator.clearTimer(claimed.requestId);
      if (body.answerToken !== undefined) void deps.answerLinks?.links.consume(body.answerToken).catch(onError);
      audit.audit(recordEntry(status, claimed, at, { answer }));
      for (const entry of decisionEntries(claimed, at, answer)) audit.audit(entry);
      const client = io.openSse();
      // A host that numbers its runs gets a logged, resumable stream that outlives its client.
      const sse = after ? new RunStream({ log, sessionId: claimed.sessionId, ...after, client, onError }) : client;
      // Checked before the claim, so every id is one of the form's: the summary leaves nothing out.
      sse.send('interaction_resolved', interactionResolvedOf(claimed, { status, at }, answer));
      try {
        await host.resume({ record: claimed, answer, toolResultContent: answerToolResultText(answer), sse });
      } catch (err) {
        // The answer is recorded; the run failed after it. Say so on the stream, log the cause server-side.
        onError(err);
        sse.send('error', {
          code: isStoreDown(err) ? 'store_unavailable' : 'internal_error',
          message: 'The run could not continue after your answer was recorded.',
        });
        sse.send('done', { reason: 'error' });
      } finally {
        sse.end();
      }
      return 'streamed';
    } catch (err) {
      if (err instanceof AskUserError) return refusal(err, known);
      if (isStoreDown(err))
        return refusal(
          new AskUserError('store_unavailable', 'The interaction store is unreachable; nothing was consumed, retry shortly.'),
          known,
        );
      throw err;
    }
  };
}

const linkRefused = () => new AskUserError('forbidden', 'This answer link does not open a waiting card.', { field: 'answerToken' });
