/**
 * How an answer leaves `<ask-user-card>`, first match wins: `ask-user-submit` (prevented → the host
 * submits), `onSubmit`, the provider or the card's own `endpoint` (`submitUserInput`, then
 * `ask-user-continued`); with none of them the card says it cannot send. Every outcome comes back to the
 * card through {@link SubmissionCard}; the controller keeps only what a retry and a 409 need to know.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ApprovalDecision } from '../plugin/contract/approval.js';
import type { Answer, QuestionAnswer } from '../plugin/contract/schema.js';
import type { ErrorOutcome, Phase } from './card-state.js';
import { submitUserInput } from './client.js';
import type { AskUserContextValue } from './context.js';
import { AskUserContinuedEvent, AskUserErrorEvent, AskUserSubmitEvent } from './events.js';
import { asFailure, failureFromThrown, failureOfResult, failureOutcome, noSession, noSubmitter } from './failure-outcome.js';
import type { AskUserRequest } from './read-answer.js';
import { receiptForAnswer, type Receipt, type SubmitFailure } from './receipt.js';

/** Where an answer can go: the card's own settings, then its provider's. */
export interface SubmissionRoute {
  onSubmit?: (
    selections: string[],
    customInput: string,
    cancelled: boolean,
    answers?: QuestionAnswer[],
    decisions?: ApprovalDecision[],
  ) => void | Promise<unknown>;
  endpoint?: string;
  sessionId?: string;
  fetch?: typeof fetch;
  provided?: AskUserContextValue;
}

/** What the controller reads from the card and tells it. */
export interface SubmissionCard {
  request(): AskUserRequest | undefined;
  phase(): Phase;
  route(): SubmissionRoute;
  /** The card now waits for `answer`. */
  submitting(answer: Answer): void;
  /** The question is closed: show `receipt` and move focus to it. */
  close(receipt: Receipt): void;
  /** The answer was not taken and the form stays open: show why, with focus on the message. */
  refused(outcome: ErrorOutcome): void;
}

export class SubmissionController implements ReactiveController {
  /** The answer last handed to a submission, for the busy labels, retries and the receipt. */
  sent?: Answer;
  /** A retryable failure (network, 503) was seen: the answer may have reached the server after all. */
  private _mayHaveLanded = false;
  declare private _requestId?: string;

  constructor(
    private readonly _host: ReactiveControllerHost & EventTarget,
    private readonly _card: SubmissionCard,
  ) {
    _host.addController(this);
  }

  /** Before each render: a new question has nothing sent for it yet. */
  hostUpdate(): void {
    const id = this._card.request()?.id;
    if (id === this._requestId) return;
    this._requestId = id;
    this.sent = undefined;
    this._mayHaveLanded = false;
  }

  retry(): void {
    if (this._card.phase() === 'pending' && this.sent) void this.send(this.sent);
  }

  /** Sends an answer the rules took, or a cancel, and reads what comes back. */
  async send(answer: Answer): Promise<void> {
    const req = this._card.request();
    if (!req || this._card.phase() !== 'pending' || req.resumable === false) return;
    const route = this._card.route();
    this.sent = answer;
    this._card.submitting(answer);
    const sessionId = req.sessionId || route.sessionId || route.provided?.sessionId || '';
    const { selections, customInput, cancelled } = answer;
    // Copies: a listener or onSubmit that changes what it got cannot change what the card sends or shows.
    const answers = () => answer.answers?.map((a) => ({ ...a, selections: [...a.selections] }));
    const decisions = () => answer.decisions?.map((d) => structuredClone(d));
    const event = new AskUserSubmitEvent({
      requestId: req.id,
      toolCallId: req.toolCallId,
      sessionId,
      selections: [...selections],
      customInput,
      cancelled,
      ...(answer.answers && { answers: answers() }),
      ...(answer.decisions && { decisions: decisions() }),
    });
    this._host.dispatchEvent(event);
    if (event.defaultPrevented) return;

    const stillMine = () => this._card.request()?.id === req.id && this._card.phase() === 'submitting';
    const accepted = () => this._card.close(receiptForAnswer(answer, new Date().toISOString()));
    if (route.onSubmit) {
      let result: unknown;
      try {
        // A card of one question keeps its three-argument call.
        result = await (answer.decisions
          ? route.onSubmit([], '', cancelled, undefined, decisions())
          : answer.answers
            ? route.onSubmit([...selections], customInput, cancelled, answers())
            : route.onSubmit([...selections], customInput, cancelled));
      } catch (err) {
        if (stillMine()) this.fail(failureFromThrown(err), true);
        return;
      }
      if (!stillMine()) return;
      const failure = await failureOfResult(result);
      if (failure) this.fail(failure, true);
      else accepted();
      return;
    }

    if (!route.provided && route.endpoint === undefined) return this._cannotSend(req);
    if (!sessionId) return this.fail(noSession(), true);
    const result = await submitUserInput(
      {
        sessionId,
        requestId: req.id,
        ...(answer.decisions
          ? { decisions: decisions() }
          : answer.answers
            ? { answers: answers() }
            : { selections: [...selections], customInput }),
        cancelled,
      },
      { endpoint: route.endpoint ?? route.provided?.endpoint ?? '/api', fetch: route.fetch ?? route.provided?.fetch },
    ).catch((err: unknown) => ({ ok: false as const, ...failureFromThrown(err) }));
    if (!stillMine()) return;
    if (!result.ok) return this.fail(result, true);
    accepted();
    const { response, events } = result;
    this._host.dispatchEvent(
      new AskUserContinuedEvent({ requestId: req.id, toolCallId: req.toolCallId, sessionId, answer, response, events }),
    );
  }

  /** The host's report that its own submission failed (`showError`): a failure value or a thrown error. */
  hostFailed(result: unknown): void {
    this.fail(asFailure(result), false);
  }

  /**
   * A submission failed: the card's own (`fromCard`, which fires `ask-user-error`) or the host's, reported
   * through `showError()`. A 409 receipt says "your answer was not used" only when this card sent something
   * and none of its earlier attempts may have landed: after a network error the first answer may be its own.
   */
  fail(failure: SubmitFailure, fromCard: boolean): void {
    const req = this._card.request();
    if (!req || this._card.phase() === 'closed') return;
    const outcome = failureOutcome(failure);
    if (outcome.kind === 'receipt') {
      const r = outcome.receipt;
      this._card.close(r.late && (this._mayHaveLanded || !this.sent) ? { ...r, late: undefined } : r);
    } else {
      if (outcome.retry) this._mayHaveLanded = true;
      this._card.refused(outcome);
    }
    if (fromCard) this._host.dispatchEvent(new AskUserErrorEvent({ requestId: req.id, failure, outcome }));
  }

  /**
   * Nothing can send this answer: no provider, no `endpoint`, no `onSubmit`, and no listener took
   * `ask-user-submit` with `preventDefault()`. Waiting in "submitting" would wait for ever, so the card
   * says so. Decided when the user submits, not when the card appears: a provider may still come (the
   * context root in context.ts hands a late provider to the card), so the form stays open with the
   * message, and the next submit uses whatever provider or endpoint is there by then.
   */
  private _cannotSend(req: AskUserRequest): void {
    const outcome: ErrorOutcome = { kind: 'error', key: 'errorNoSubmitter', retry: false };
    this._card.refused(outcome);
    this._host.dispatchEvent(new AskUserErrorEvent({ requestId: req.id, failure: noSubmitter(), outcome }));
  }
}
