/**
 * Interception (docs/protocol.md §2): an `ask_user` tool call never reaches a tool executor. The coordinator
 * validates its arguments, records the pending interaction, announces it on the chat stream and tells
 * the loop to pause once the turn's ordinary tool calls have run. It also closes interactions that end
 * without an answer (expired, superseded), so the model's history never holds a call without a result.
 */
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import { CANCEL_ANSWER, cancelAnswerFor, closedToolResultText } from '../contract/tool-result.js';
import { recordEntry, summarizeAnswer, type AuditLogger } from './audit.js';
import type { AdmitChat } from './chat-admission.js';
import { newRequestId } from './request-id.js';
import { isChoiceMode } from '../contract/limits.js';
import { BOUND_KEYS, dropNullFields } from '../contract/bounds.js';
import {
  askUserArgsSchema,
  formMode,
  sessionIdSchema,
  type AskUserForm,
  type AskUserQuestion,
  type Answer,
  type FormQuestion,
  type InteractionResolved,
  type UserInputRequired,
} from '../contract/schema.js';
import type { ClosedContext, RunHost, SseSink } from './host.js';
import { isPastExpiry, type InteractionRecord, type PendingStore, type Resolution } from '../store/types.js';
import type { EventLog } from '../store/event-log.js';
import { inProcessLog } from '../store/memory-log.js';
import type { NotifyScheduler } from '../notify/notify-scheduler.js';

/** A Chat Completions tool call, as the `openai` SDK hands it over. */
export interface ToolCallLike {
  id: string;
  type?: string;
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** A ToolResult the loop must append (and send as `tool_result`) for a refused `ask_user` call. */
export interface ErrorToolResult {
  toolCallId: string;
  name: string;
  content: string;
  isError: true;
}

export interface InterceptContext {
  sessionId: string;
  /** The chat stream; `user_input_required` is written on it. Omit to deliver `result.event` yourself. */
  sse?: SseSink;
  /**
   * The caller already closed every open interaction of the session (a runtime that supersedes on each
   * new message and holds the session's lease), so interception skips looking for one. @default false
   */
  noneOpen?: boolean;
}

export interface InterceptResult<C extends ToolCallLike = ToolCallLike> {
  /** True when a question is now pending: run `ordinaryCalls`, append `errorResults`, then pause the run. */
  pause: boolean;
  /** The stored interaction, when `pause`. */
  interaction?: InteractionRecord;
  /** The `user_input_required` data as written, when `pause`. */
  event?: UserInputRequired;
  /** Every call not named `ask_user`, in their original order, for the normal executor. */
  ordinaryCalls: C[];
  /** One error ToolResult per `ask_user` call that was not asked. Nothing of these reached the user. */
  errorResults: ErrorToolResult[];
}

export type CloseStatus = 'expired' | 'superseded';

export interface AskContext {
  sessionId: string;
  /** The call the answer is the result of: the model's tool call, or a host's own id. */
  toolCallId: string;
  /** Where `user_input_required` is written; omit to deliver the returned event yourself. */
  sse?: SseSink;
  /** The caller already closed every open interaction of the session. @default false */
  noneOpen?: boolean;
}

export interface CoordinatorOptions {
  store: PendingStore;
  host: RunHost;
  audit: AuditLogger;
  /** The chat's door (chat-admission.ts), which a runtime's chat calls first. */
  admitChat: AdmitChat;
  /** Interaction lifetime in ms. */
  ttlMs: number;
  now: () => number;
  /** Close interactions as `expired` at `expiresAt` with an in-process timer (others close lazily). */
  expiryTimers: boolean;
  /** Failures nobody awaits (a host's `closed` hook, a timer's close), for `app.on('error')`-style logging. */
  onError: (err: unknown) => void;
  /** A new request id for a question of `sessionId`. @default `newRequestId` (random, with the session's slot tag) */
  newId?: (sessionId: string) => string;
  /** When notifiers run for a card that waits (§13); none: no notifications. */
  notify?: NotifyScheduler;
}

/** The `user_input_required` data of a record (docs/protocol.md §3). */
export function userInputRequiredOf(record: InteractionRecord): UserInputRequired {
  const { form } = record;
  const data: UserInputRequired = {
    id: record.requestId,
    toolCallId: record.toolCallId,
    sessionId: record.sessionId,
    title: form.title,
    mode: formMode(form),
    expiresAt: new Date(record.expiresAt).toISOString(),
    resumable: true,
  };
  if (form.description !== undefined) data.description = form.description;
  if (form.questions) data.questions = form.questions.map(formQuestionOf);
  if (form.url !== undefined) data.url = form.url;
  if (form.approvals !== undefined) data.approvals = form.approvals;
  if (form.options !== undefined) data.options = form.options;
  if (form.allowCustom !== undefined) data.allowCustom = form.allowCustom;
  if (form.submitLabel !== undefined) data.submitLabel = form.submitLabel;
  // The §9.1 fields the model gave, unchanged (numbers stay numbers), in the contract's order.
  for (const key of BOUND_KEYS) if (form[key] !== undefined) (data as Record<string, unknown>)[key] = form[key];
  return data;
}

/**
 * The `interaction_resolved` data of a closed record (docs/protocol.md §3): its status and time, and what
 * the answer says (ids of the form, the length of text); a closing without an answer says the cancel.
 */
export function interactionResolvedOf(
  record: InteractionRecord,
  { status, at }: Pick<Resolution, 'status' | 'at'>,
  answer: Answer = cancelAnswerFor(record.form),
): InteractionResolved {
  return {
    requestId: record.requestId,
    toolCallId: record.toolCallId,
    status,
    at: new Date(at).toISOString(),
    ...summarizeAnswer(record.form, answer),
  };
}

/** A question as the card gets it (§9.2): `required` always said, in the contract's key order. */
function formQuestionOf(q: AskUserQuestion): FormQuestion {
  const out: FormQuestion = { id: q.id, title: q.title, mode: q.mode, required: q.required ?? true };
  if (q.header !== undefined) out.header = q.header;
  if (q.description !== undefined) out.description = q.description;
  if (q.options !== undefined) out.options = q.options;
  if (q.allowCustom !== undefined) out.allowCustom = q.allowCustom;
  for (const key of BOUND_KEYS) if (q[key] !== undefined) (out as Record<string, unknown>)[key] = q[key];
  const { format } = q as { format?: FormQuestion['format'] };
  if (format) out.format = format;
  return out;
}

type Parsed = { ok: true; form: AskUserForm } | { ok: false; problems: string[] };

/** Parse and validate one call's arguments; the form keeps options only for choice modes. */
export function parseAskUserArguments(raw: string | Record<string, unknown>): Parsed {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      // The parser's message quotes the arguments, which may carry the user's words into the audit line.
      return {
        ok: false,
        problems: [`arguments are not valid JSON (${(err as Error).name}); send one JSON object with double-quoted keys and strings`],
      };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: ['arguments must be a JSON object with at least "title" and "mode"'] };
  }
  const result = askUserArgsSchema.safeParse(dropNullFields(value as Record<string, unknown>));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    return { ok: false, problems };
  }
  const form: AskUserForm = { ...result.data };
  if (form.questions) form.questions = form.questions.map((q) => (isChoiceMode(q.mode) ? q : withoutOptions(q)));
  else if (!isChoiceMode(form.mode!)) delete form.options;
  return { ok: true, form };
}

const withoutOptions = (q: AskUserQuestion): AskUserQuestion => {
  const { options: _dropped, ...rest } = q;
  return rest;
};

const refusal = (toolCallId: string, content: string): ErrorToolResult => ({
  toolCallId,
  name: ASK_USER_TOOL_NAME,
  content,
  isError: true,
});

/**
 * The kit's coordinator: what the routes and a runtime call to ask, intercept and close questions. One per
 * kit; `createAskUserKit({ runtime })` hands it to the runtime it builds.
 */
export class Coordinator {
  /** Where the questions live. */
  readonly store: PendingStore;
  /** The sessions' event log (contract §11): the store's, else one in this process. */
  readonly log: EventLog;
  /** The chat's door: checks the session, the message and the caller (the kit's `authorize`), audits refusals. */
  readonly admitChat: AdmitChat;
  readonly #host: RunHost;
  readonly #audit: AuditLogger;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #expiryTimers: boolean;
  readonly #onError: (err: unknown) => void;
  readonly #newId: (sessionId: string) => string;
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #notify: NotifyScheduler | undefined;

  constructor(options: CoordinatorOptions) {
    const { store, host, audit, admitChat, ttlMs, now, expiryTimers, onError, newId = newRequestId, notify } = options;
    this.#notify = notify;
    this.store = store;
    this.log = store.log ?? inProcessLog(store);
    this.admitChat = admitChat;
    this.#host = host;
    this.#audit = audit;
    this.#ttlMs = ttlMs;
    this.#now = now;
    this.#expiryTimers = expiryTimers;
    this.#onError = onError;
    this.#newId = newId;
  }

  /** Split a turn's tool calls, ask the first valid `ask_user`, and say whether the run must pause. */
  async intercept<C extends ToolCallLike>(
    toolCalls: readonly C[],
    { sessionId, sse, noneOpen = false }: InterceptContext,
  ): Promise<InterceptResult<C>> {
    // A card whose session id the continue route would refuse could never be answered: fail loudly here.
    if (!sessionIdSchema.safeParse(sessionId).success) {
      throw new TypeError(
        `intercept needs a sessionId of 1-128 printable ASCII characters without spaces, got ${JSON.stringify(sessionId)}`,
      );
    }
    const ordinaryCalls = toolCalls.filter((c) => c.function?.name !== ASK_USER_TOOL_NAME);
    const errorResults: ErrorToolResult[] = [];
    let asked: { call: C; form: AskUserForm } | undefined;

    for (const call of toolCalls) {
      if (call.function?.name !== ASK_USER_TOOL_NAME) continue;
      const parsed = parseAskUserArguments(call.function.arguments);
      if (!parsed.ok) {
        this.#audit.audit({
          event: 'rejected',
          at: new Date(this.#now()).toISOString(),
          sessionId,
          toolCallId: call.id,
          reason: 'invalid_arguments',
          detail: parsed.problems.join('; '),
        });
        errorResults.push(
          refusal(
            call.id,
            `ask_user was not shown to the user because its arguments are invalid: ${parsed.problems.join('; ')}. Fix the arguments and call ask_user again.`,
          ),
        );
      } else if (asked) {
        this.#audit.audit({
          event: 'rejected',
          at: new Date(this.#now()).toISOString(),
          sessionId,
          toolCallId: call.id,
          mode: parsed.form.mode,
          reason: 'one_question_at_a_time',
        });
        errorResults.push(
          refusal(
            call.id,
            `ask_user was not shown to the user: ask one question at a time. The question of tool call ${asked.call.id} is waiting for the user's answer; ask this one after it, if it is still needed.`,
          ),
        );
      } else {
        asked = { call, form: parsed.form };
      }
    }
    if (!asked) return { pause: false, ordinaryCalls, errorResults };
    const { record, event } = await this.ask(asked.form, { sessionId, toolCallId: asked.call.id, ...(sse ? { sse } : {}), noneOpen });
    return { pause: true, interaction: record, event, ordinaryCalls, errorResults };
  }

  /**
   * Store a question that is already valid (from interception, or built by the host, as an MCP
   * elicitation is) as the session's pending interaction, announce it, audit it and time its expiry.
   */
  async ask(
    form: AskUserForm,
    { sessionId, toolCallId, sse, noneOpen = false }: AskContext,
  ): Promise<{ record: InteractionRecord; event: UserInputRequired }> {
    // One session, one pending interaction: an older one still open is closed before the new one exists.
    if (!noneOpen) await this.supersede(sessionId);
    const createdAt = this.#now();
    const record: InteractionRecord = {
      requestId: this.#newId(sessionId),
      toolCallId,
      sessionId,
      form,
      createdAt,
      expiresAt: createdAt + this.#ttlMs,
      status: 'pending',
    };
    await this.store.create(record);
    const event = userInputRequiredOf(record);
    sse?.send('user_input_required', event);
    this.#audit.audit(recordEntry('asked', record, createdAt));
    this.#scheduleExpiry(record);
    this.#notify?.schedule(record);
    return { record, event };
  }

  /** Close the session's open interaction: `expired` if it is past expiry, else `superseded`; the host's `closed` runs. */
  async supersede(sessionId: string): Promise<InteractionRecord | undefined> {
    const current = await this.store.currentOf(sessionId);
    if (!current || !isOpen(current)) return undefined;
    return this.closeInteraction(current.requestId, isPastExpiry(current, this.#now()) ? 'expired' : 'superseded');
  }

  /**
   * `supersede` for a runtime that writes the closed card's ToolResult itself (the run engine, before a new
   * message): claimed and audited, returned with its ToolResult; the host's `closed` is not called.
   */
  async closeOpen(sessionId: string): Promise<ClosedContext | undefined> {
    const current = await this.store.currentOf(sessionId);
    if (!current || !isOpen(current)) return undefined;
    return this.#claimClosing(current.requestId, isPastExpiry(current, this.#now()) ? 'expired' : 'superseded');
  }

  /**
   * The stop button on an open card (contract §11): claim it as `cancelled` with the form's cancel answer
   * and audit it. The runtime then writes its ToolResult as for a cancel sent by the card. Undefined when
   * nothing was open (or another closing won).
   */
  async cancelOpen(sessionId: string): Promise<{ record: InteractionRecord; answer: Answer } | undefined> {
    const current = await this.store.currentOf(sessionId);
    if (!current || !isOpen(current)) return undefined;
    this.clearTimer(current.requestId);
    const at = this.#now();
    const answer = cancelAnswerFor(current.form);
    const outcome = await this.store.claim(current.requestId, { status: 'cancelled', at, answer });
    if (!outcome.ok) return undefined;
    this.#audit.audit(recordEntry('cancelled', outcome.record, at, { answer }));
    return { record: outcome.record, answer };
  }

  /** Close the session's interaction as `expired` if it is past expiry; a live one is left alone. */
  async expireDue(sessionId: string): Promise<InteractionRecord | undefined> {
    const current = await this.store.currentOf(sessionId);
    if (!current || !isOpen(current) || !isPastExpiry(current, this.#now())) return undefined;
    return this.closeInteraction(current.requestId, 'expired');
  }

  /**
   * Close an interaction that ends without an answer. Exactly one caller across all instances wins the
   * claim; the others get `undefined`. The host's `closed` hook runs after the claim.
   */
  async closeInteraction(requestId: string, status: CloseStatus): Promise<InteractionRecord | undefined> {
    const closed = await this.#claimClosing(requestId, status);
    if (!closed) return undefined;
    try {
      await this.#host.closed(closed);
    } catch (err) {
      this.#onError(err);
    }
    return closed.record;
  }

  /** Claim a closing (exactly one caller across instances wins) and audit it; its ToolResult follows the form. */
  async #claimClosing(requestId: string, status: CloseStatus): Promise<ClosedContext | undefined> {
    this.clearTimer(requestId);
    const at = this.#now();
    // The stored answer of a closing is the plain cancel whatever the form.
    const outcome = await this.store.claim(requestId, { status, at, answer: CANCEL_ANSWER }, { allowExpired: true });
    if (!outcome.ok) return undefined;
    this.#audit.audit(recordEntry(status, outcome.record, at));
    return { record: outcome.record, toolResultContent: closedToolResultText(status, outcome.record.form.questions !== undefined) };
  }

  /** Audit a resolution whose claiming process died before its audit line (a runtime's roll-forward wrote its ToolResult). */
  auditRecovered(record: InteractionRecord): void {
    const r = record.resolution;
    if (!r) return;
    this.#audit.audit(recordEntry(r.status, record, r.at, { ...(r.status === 'answered' ? { answer: r.answer } : {}), recovered: true }));
  }

  /**
   * A sweep found a card still waiting (any instance's): its notifiers run now if it is due and nobody ran
   * them yet (§13). Returns at once; the delivery goes on in the background.
   */
  notifyDue(record: InteractionRecord): void {
    this.#notify?.due(record);
  }

  /** Stop the expiry and notification timers of one question (it was answered). */
  clearTimer(requestId: string): void {
    this.#notify?.cancel(requestId);
    const t = this.#timers.get(requestId);
    if (t !== undefined) clearTimeout(t);
    this.#timers.delete(requestId);
  }

  /** Stop every expiry timer (the kit closes). */
  close(): void {
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  #scheduleExpiry(record: InteractionRecord): void {
    if (!this.#expiryTimers) return;
    const delay = Math.max(0, record.expiresAt - this.#now());
    // setTimeout caps at 2^31-1 ms; a longer TTL closes lazily instead.
    if (delay > 2 ** 31 - 1) return;
    const t = setTimeout(() => {
      this.#timers.delete(record.requestId);
      this.closeInteraction(record.requestId, 'expired').catch(this.#onError);
    }, delay);
    t.unref();
    this.#timers.set(record.requestId, t);
  }
}

/** A record that still needs closing: pending, or expired by the clock but not yet collected. */
const isOpen = (r: InteractionRecord) => r.status === 'pending' || (r.status === 'expired' && !r.resolution);
