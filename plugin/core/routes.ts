/**
 * `POST {prefix}/chat/continue` and `GET {prefix}/interactions/pending` (docs/protocol.md §4, §5), free of
 * any framework: an adapter (plugin/adapters/) turns its request into a `RouteRequest`, gives the route
 * its caller's authorization and an SSE sink on its response, and writes the `JsonReply` back.
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
import { checkAnswer, type AnswerProblem } from '../contract/answer-rules.js';
import { recordEntry, type AuditEntry, type AuditLogger } from './audit.js';
import { AskUserError, type Receipt } from './errors.js';
import { userInputRequiredOf, type Coordinator } from './coordinator.js';
import { answerToolResultText, CANCEL_ANSWER } from '../contract/tool-result.js';
import { continueBodySchema, requestIdSchema, sessionIdSchema, type Answer, type PendingInteraction } from '../contract/schema.js';
import type { RunHost } from './host.js';
import { isPastExpiry, StoreUnavailableError, type InteractionRecord, type PendingStore } from '../store/types.js';

import { crossSiteReason } from './same-origin.js';
import type { SseSink } from './host.js';

/** An HTTP request as the routes read it, whatever framework received it. */
export interface RouteRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** A query parameter: its one value, every value when it repeats, or undefined. */
  query(name: string): string | readonly string[] | undefined;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The server's own origin as the client addressed it (`protocol://host`), for the cross-site rule. */
  readonly ownOrigin: string;
  /** The JSON body within 64 KiB, or an AskUserError `invalid_request` (400, 413 or 415). */
  readJson(): Promise<unknown>;
}

/** What the adapter gives one request: its caller's authorization and a stream on its response. */
export interface RouteIo {
  /** True when this request's caller may act on `sessionId`. */
  authorized(sessionId: string): boolean | Promise<boolean>;
  /** Start the SSE response (status 200 and docs/protocol.md §3's headers). */
  openSse(): SseSink;
}

/** A JSON answer for the adapter to write. */
export interface JsonReply {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/** The outcome of one request: a JSON reply, a stream already written through `io.openSse`, or not ours. */
export type RouteResult = JsonReply | 'streamed' | undefined;

export type RouteHandler = (req: RouteRequest, io: RouteIo) => Promise<RouteResult>;

export interface RoutesDeps {
  store: PendingStore;
  host: RunHost;
  coordinator: Coordinator;
  audit: AuditLogger;
  prefix: string;
  /** Front-end origins besides the server's own that may POST continue. */
  allowedOrigins: readonly string[];
  now: () => number;
  /** Errors no request waits for (a resume that threw after the claim). */
  onError: (err: unknown) => void;
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
    throw new AskUserError('store_unavailable', 'The interaction store is unreachable; nothing was consumed, retry shortly.', {
      cause: err,
    });
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

const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export function createRoutes(deps: RoutesDeps): RouteHandler {
  const { store, host, coordinator, audit, allowedOrigins, now, onError } = deps;
  const prefix = deps.prefix.replace(/\/+$/, '');
  const continuePath = `${prefix}/chat/continue`;
  const pendingPath = `${prefix}/interactions/pending`;

  /** `rejected` may be a function: the full context of a looked-up record is built only when refused. */
  const refusal = (err: AskUserError, rejected: AuditContext | (() => AuditContext), headers: Record<string, string> = {}): JsonReply => {
    const context = typeof rejected === 'function' ? rejected() : rejected;
    audit.audit({ event: 'rejected', at: iso(now()), ...context, reason: err.code, detail: err.message });
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

  async function continueInteraction(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext | (() => AuditContext) = {};
    try {
      // Before the body is read: a page on another site learns nothing, not even whether its body parsed.
      const crossSite = crossSiteReason(req.header('origin'), req.header('sec-fetch-site'), req.ownOrigin, allowedOrigins);
      if (crossSite) throw new AskUserError('forbidden', `Cross-site request: ${crossSite}.`);
      const raw = await req.readJson();
      const parsed = continueBodySchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.map(String).join('.') || undefined;
        const fields = raw as Record<string, unknown> | undefined;
        // Ids are logged only once they are well-formed, so nothing arbitrary reaches the audit trail.
        const sessionId = sessionIdSchema.safeParse(fields?.sessionId);
        const requestId = requestIdSchema.safeParse(fields?.requestId);
        known = {
          ...(sessionId.success ? { sessionId: sessionId.data } : {}),
          ...(requestId.success ? { requestId: requestId.data } : {}),
        };
        throw new AskUserError('invalid_request', `${field ?? 'body'}: ${issue.message}`, field ? { field } : {});
      }
      const body = parsed.data;
      known = { sessionId: body.sessionId, requestId: body.requestId };
      await checkAuthorized(io, body.sessionId);

      const record = await store.get(body.requestId).catch(storeError);
      if (!record)
        throw new AskUserError('not_found', 'No interaction has this requestId (unknown, or past retention).', { field: 'requestId' });
      const answer: Answer = body.cancelled
        ? CANCEL_ANSWER
        : { selections: body.selections, customInput: body.customInput, cancelled: false };
      known = () => auditContext(record, body.sessionId, answer);
      if (record.sessionId !== body.sessionId) {
        throw new AskUserError('session_mismatch', 'This requestId belongs to another session.', { field: 'sessionId' });
      }
      if (record.resolution || (record.status !== 'pending' && record.status !== 'expired')) throw closedError(record);
      if (isPastExpiry(record, now())) {
        await collectExpired(record).catch(storeError);
        throw expiredError();
      }
      if (!(await host.isResumable(record))) {
        // A duplicate may have read the record just before another submission claimed it and resumed the
        // run; the run then no longer waits on it. Read again so that duplicate gets its receipt, not
        // "restarted".
        const fresh = await store.get(record.requestId).catch(storeError);
        if (fresh?.resolution) throw closedError(fresh);
        if (fresh && isPastExpiry(fresh, now())) throw expiredError();
        throw new AskUserError(
          'not_resumable',
          'The paused run cannot be continued by this server (it was restarted); start the task again.',
        );
      }
      if (!body.cancelled) {
        const check = checkAnswer(record.form, body);
        if (!check.ok) throw new AskUserError('invalid_answer', safeAnswerMessage(check.problem, check.message), { field: check.field });
      }

      const at = now();
      const status = body.cancelled ? 'cancelled' : 'answered';
      const outcome = await store.claim(record.requestId, { status, at, answer }).catch(storeError);
      if (!outcome.ok) {
        if (outcome.reason === 'not_found')
          throw new AskUserError('not_found', 'No interaction has this requestId.', { field: 'requestId' });
        if (outcome.reason === 'expired') {
          await collectExpired(outcome.record).catch(storeError);
          throw expiredError();
        }
        throw closedError(outcome.record);
      }

      const claimed = outcome.record;
      coordinator.clearTimer(claimed.requestId);
      audit.audit(recordEntry(status, claimed, at, { answer }));
      const sse = io.openSse();
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
  }

  async function pendingInteraction(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
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
  }

  const methodNotAllowed = (allow: string): JsonReply => ({
    status: 405,
    headers: { Allow: allow },
    body: { error: { code: 'invalid_request', message: `Use ${allow} on this route.` } },
  });

  return async function askUserRoutes(req, io) {
    if (req.path === continuePath) return req.method === 'POST' ? continueInteraction(req, io) : methodNotAllowed('POST');
    if (req.path === pendingPath)
      return req.method === 'GET' || req.method === 'HEAD' ? pendingInteraction(req, io) : methodNotAllowed('GET, HEAD');
    return undefined;
  };
}
