/**
 * How an answer leaves `<ask-user-card>`, first match wins: `ask-user-submit` (prevented → the host
 * submits), `onSubmit`, the provider or the card's own `endpoint` (`submitUserInput`, then
 * `ask-user-continued`); with none of them the card says it cannot send. Every outcome comes back to the
 * card through {@link SubmissionCard}; the controller keeps only what a retry and a 409 need to know. The
 * sending itself (submission-send.ts) loads with the rules a submit needs, which it waits for anyway.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Answer, QuestionAnswer } from '../plugin/contract/schema.js';
import type { ErrorOutcome, Phase } from './card-state.js';
import { submitUserInput } from './client.js';
import type { AskUserContextValue } from './context.js';
import { AskUserContinuedEvent, AskUserErrorEvent, AskUserSubmitEvent } from './events.js';
import type { AskUserRequest } from './read-answer.js';
import type { FailureOutcome, Receipt, SubmitFailure } from './receipt.js';
import { submitRules, type SubmitRules } from './submit-rules-loader.js';

/** Where an answer can go: the card's own settings, then its provider's. */
export interface SubmissionRoute {
  onSubmit?: (selections: string[], customInput: string, cancelled: boolean, answers?: QuestionAnswer[]) => void | Promise<unknown>;
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

/** The rules' file could not be loaded: nothing was sent, and the next try loads it again. */
export const NOT_SENT: ErrorOutcome = { kind: 'error', key: 'errorNetwork', retry: false };

/**
 * The entry's own event classes and client call, for the sending code in the rules' chunk
 * (submission-send.ts): that chunk imports nothing, and a host must receive the public classes.
 */
const ENTRY_PARTS = { AskUserSubmitEvent, AskUserContinuedEvent, AskUserErrorEvent, submitUserInput };
export type EntryParts = typeof ENTRY_PARTS;

export class SubmissionController implements ReactiveController {
  /** The answer last handed to a submission, for the busy labels, retries and the receipt. */
  sent?: Answer;
  /** A retryable failure (network, 503) was seen: the answer may have reached the server after all. */
  private _mayHaveLanded = false;
  declare private _requestId?: string;

  // Not private: submission-send.ts, in the rules' chunk, drives the card and its host through them.
  constructor(
    readonly _host: ReactiveControllerHost & EventTarget,
    readonly _card: SubmissionCard,
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

  /** Sends an answer (one the rules took, or a cancel); the rules read what comes back. */
  async send(answer: Answer): Promise<void> {
    const asked = this._card.request();
    // In by now, but for a cancel made at once: it waits for them.
    const rules = submitRules.get() ?? (await submitRules.load());
    const req = this._card.request();
    if (!req || req !== asked || this._card.phase() !== 'pending' || req.resumable === false) return;
    if (!rules) return this._card.refused(NOT_SENT);
    return rules.sendAnswer(this, req, answer, ENTRY_PARTS);
  }

  /** The host's report that its own submission failed (`showError`): a failure value or a thrown error. */
  hostFailed(result: unknown): void {
    const rules = submitRules.get();
    if (rules) return this.fail(rules.asFailure(result), false);
    const id = this._card.request()?.id;
    void submitRules.load().then((loaded) => this._card.request()?.id === id && this.fail(loaded?.asFailure(result) ?? {}, false));
  }

  /**
   * A submission failed: the card's own (`fromCard`, which fires `ask-user-error`) or the host's, reported
   * through `showError()`. A 409 receipt says "your answer was not used" only when this card sent something
   * and none of its earlier attempts may have landed: after a network error the first answer may be its own.
   */
  fail(failure: SubmitFailure, fromCard: boolean): void {
    const req = this._card.request();
    if (!req || this._card.phase() === 'closed') return;
    const rules = submitRules.get();
    if (rules) return this._failed(req, failure, fromCard, rules);
    // Only while the rules' file is still loading: the failure lands once it is in, if the question is still shown.
    void submitRules.load().then((loaded) => this._card.request()?.id === req.id && this._failed(req, failure, fromCard, loaded));
  }

  private _failed(req: AskUserRequest, failure: SubmitFailure, fromCard: boolean, rules: SubmitRules | undefined): void {
    if (this._card.phase() === 'closed') return;
    const outcome: FailureOutcome = rules?.failureOutcome(failure) ?? {
      kind: 'error',
      key: 'errorUnknown',
      detail: failure.error?.message || undefined,
      retry: true,
    };
    if (outcome.kind === 'receipt') {
      const r = outcome.receipt;
      this._card.close(r.late && (this._mayHaveLanded || !this.sent) ? { ...r, late: undefined } : r);
    } else {
      if (outcome.retry) this._mayHaveLanded = true;
      this._card.refused(outcome);
    }
    if (fromCard) this._host.dispatchEvent(new AskUserErrorEvent({ requestId: req.id, failure, outcome }));
  }
}
