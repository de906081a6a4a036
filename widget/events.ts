/**
 * Typed events of `<ask-user-card>` and `<ask-user-provider>`. Each fires for a user action or an async outcome,
 * never because a host set a property; each bubbles and is `composed`, so it crosses shadow roots to the host's
 * listener.
 */
import type { Answer, QuestionAnswer } from '../plugin/contract/schema.js';
import type { ApprovalDecision } from '../plugin/contract/approval.js';
import type { ChatEventStream, ConnectionState } from './client-types.js';
import type { FailureOutcome, SubmitFailure } from './receipt.js';

export interface AskUserSubmitDetail {
  requestId: string;
  toolCallId: string;
  sessionId: string;
  selections: string[];
  customInput: string;
  cancelled: boolean;
  /** A card of several questions (§9.2): one answer per question, in order (`[]` on a cancel); `selections` is then `[]` and `customInput` `''`. */
  answers?: QuestionAnswer[];
  /** An approval card (§12): one decision per call, in order (`[]` on a cancel); `selections` is then `[]` and `customInput` `''`. */
  decisions?: ApprovalDecision[];
}

/**
 * `ask-user-submit`: the user submitted (or cancelled) and the answer passed the server's rules.
 * Cancelable: `preventDefault()` tells the card that the host submits itself, so neither `onSubmit` nor a
 * provider is used; the host then calls `card.markSubmitted()` or `card.showError(result)`.
 */
export class AskUserSubmitEvent extends Event {
  static readonly eventName = 'ask-user-submit' as const;
  readonly detail: AskUserSubmitDetail;
  constructor(detail: AskUserSubmitDetail) {
    super(AskUserSubmitEvent.eventName, { bubbles: true, composed: true, cancelable: true });
    this.detail = detail;
  }
}

export interface AskUserContinuedDetail {
  requestId: string;
  toolCallId: string;
  sessionId: string;
  answer: Answer;
  /** The `200 text/event-stream` response of `POST /api/chat/continue`. */
  response: Response;
  /**
   * The continuation stream, parsed: `interaction_resolved`, `tool_result`, the continued run, `done`. Read once.
   * It reconnects by itself after a cut (docs/protocol.md §11) and fires `connection` when its state changes.
   */
  events: ChatEventStream;
}

/**
 * `ask-user-continued`: the card submitted by itself (provider or own `endpoint`) and the server accepted.
 * The card does not read `events`; the listener owns the continuation stream.
 */
export class AskUserContinuedEvent extends Event {
  static readonly eventName = 'ask-user-continued' as const;
  readonly detail: AskUserContinuedDetail;
  constructor(detail: AskUserContinuedDetail) {
    super(AskUserContinuedEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

export interface AskUserErrorDetail {
  requestId: string;
  failure: SubmitFailure;
  /** What the card now shows: a receipt (409/410/404) or an error with or without a retry. */
  outcome: FailureOutcome;
}

/**
 * `ask-user-error`: a submission the card made itself (`onSubmit`, provider or own `endpoint`) failed.
 * Not fired for `showError()`: the host that calls it already knows.
 */
export class AskUserErrorEvent extends Event {
  static readonly eventName = 'ask-user-error' as const;
  readonly detail: AskUserErrorDetail;
  constructor(detail: AskUserErrorDetail) {
    super(AskUserErrorEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

export interface AskUserExpiredDetail {
  requestId: string;
  toolCallId: string;
}

/** `ask-user-expired`: the countdown reached `expiresAt` while the card was open; it now shows the timeout receipt. */
export class AskUserExpiredEvent extends Event {
  static readonly eventName = 'ask-user-expired' as const;
  readonly detail: AskUserExpiredDetail;
  constructor(detail: AskUserExpiredDetail) {
    super(AskUserExpiredEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

export interface AskUserConnectionDetail {
  /** `reconnecting` (cut off for 2 s), `connected` (frames flow again) or `gone` (reload the session's view). */
  state: ConnectionState;
  sessionId: string;
  /** The card whose answer started the stream. */
  requestId: string;
}

/**
 * `ask-user-connection`, fired by `<ask-user-provider>`: the continuation stream a card under it started
 * changed its connection state (the stream's own `connection` event, passed on with the session).
 */
export class AskUserConnectionEvent extends Event {
  static readonly eventName = 'ask-user-connection' as const;
  readonly detail: AskUserConnectionDetail;
  constructor(detail: AskUserConnectionDetail) {
    super(AskUserConnectionEvent.eventName, { bubbles: true, composed: true });
    this.detail = detail;
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'ask-user-connection': AskUserConnectionEvent;
    'ask-user-submit': AskUserSubmitEvent;
    'ask-user-continued': AskUserContinuedEvent;
    'ask-user-error': AskUserErrorEvent;
    'ask-user-expired': AskUserExpiredEvent;
  }
}
