import type { PropertyDeclarations, PropertyValues } from 'lit';
import { ContextConsumer } from '@lit/context';
import type { Answer, DoneReason, InteractionResolved } from '../plugin/contract/schema.js';
import { cardStyles } from './ask-user-card.styles.js';
import { AskUserCardView, RUN_NOTES } from './ask-user-card.templates.js';
import { submitUserInput } from './client.js';
import { askUserContext } from './context.js';
import { AskUserContinuedEvent, AskUserErrorEvent, AskUserExpiredEvent, AskUserSubmitEvent } from './events.js';
import { CANCEL_ANSWER, EMPTY_DRAFT, isAskUserRequest, isKnownMode, normalizeRequest, readAnswer, remainingMs, validateAnswer, type AskUserRequest } from './read-answer.js';
import { failureFromThrown, failureOfResult, failureOutcome, isSubmitFailure, receiptForAnswer, type Receipt, type SubmitFailure } from './receipt.js';
import { resolveLocale, resolveStrings, type AskUserStrings } from './strings.js';

export type { AskUserRequest } from './read-answer.js';
export type { DoneReason } from '../plugin/contract/schema.js';

/**
 * @summary The form an `ask_user` tool call asks for: renders the question with native controls,
 * checks the answer with the server's rules, submits it, and turns into a read-only receipt.
 *
 * How an answer leaves the card, first match wins: `ask-user-submit` is fired (cancelable; prevented →
 * the host submits and reports back with `markSubmitted()` / `showError()`); else `onSubmit` is called;
 * else, under an `<ask-user-provider>` or with its own `endpoint`, the card posts through
 * `submitUserInput` and fires `ask-user-continued`; else it says it cannot send the answer (and fires
 * `ask-user-error` with code `no_submitter`) instead of waiting in "submitting" for nobody.
 * Nothing is sent for an answer the server's rules refuse, nor for `resumable: false`.
 *
 * Public methods: `markSubmitted(at?)`, `markResolved(interactionResolved)`, `showError(result)`, and
 * `markRunEnded(reason)`: an answered receipt says "继续执行中…" until the host, reading the continuation
 * stream (`ask-user-continued`), passes its `done` reason; the note then says how the run ended.
 *
 * @slot - Nothing: all content comes from `request`. (Model text is only ever rendered as text.)
 *
 * @event {AskUserSubmitEvent} ask-user-submit - The user submitted or cancelled and the answer passed validation.
 *   Cancelable: `preventDefault()` means the host submits itself and reports back with `markSubmitted()` / `showError()`.
 * @event {AskUserContinuedEvent} ask-user-continued - The card submitted by itself (provider or `endpoint`) and the
 *   server accepted; `detail.events` is the continuation stream, `detail.response` the raw response.
 * @event {AskUserErrorEvent} ask-user-error - A submission the card made failed; `detail.outcome` says what it now shows.
 * @event {AskUserExpiredEvent} ask-user-expired - The countdown reached `expiresAt`; the card shows the timeout receipt.
 *
 * @csspart base - The card's box.
 * @csspart form - The `<form>` of an open card.
 * @csspart fieldset - The `<fieldset>` holding the question and its controls.
 * @csspart title - The question (`<legend>`).
 * @csspart description - The question's description.
 * @csspart options - The list of options (single, multiple, toggle).
 * @csspart option - One option row.
 * @csspart control - An option's radio, checkbox or switch.
 * @csspart option-label - An option's label.
 * @csspart option-description - An option's description.
 * @csspart recommended-badge - The "推荐 / Recommended" badge.
 * @csspart field - The answer box of text, number, date and directory modes.
 * @csspart hint - The hint under a field or the options.
 * @csspart custom - The "其他说明 / Other" block; `custom-label`, `custom-input` inside it.
 * @csspart custom-label - The "Other" box's label.
 * @csspart custom-input - The "Other" box.
 * @csspart error - A validation message next to its field.
 * @csspart server-error - A refused submission, in words, with `retry-button` when retrying helps.
 * @csspart retry-button - Retries the last submission.
 * @csspart expiry - The countdown to `expiresAt`.
 * @csspart actions - The row of buttons.
 * @csspart submit-button - The submit button (`submitLabel`).
 * @csspart cancel-button - The cancel button.
 * @csspart receipt - The read-only receipt of a closed card.
 * @csspart receipt-question - The question, in the receipt.
 * @csspart receipt-status - What happened (submitted, cancelled, timed out, …).
 * @csspart receipt-answer - What was chosen (labels) and typed.
 * @csspart receipt-time - When.
 * @csspart receipt-note - What happens next ("继续执行中…", then "已继续，任务完成" after `markRunEnded`, "任务已停止", …);
 *   `data-run` holds the `done` reason once the run ended.
 *
 * @cssproperty --ask-user-font-family - Font of the card.
 * @cssproperty --ask-user-font-size - Base font size. Default `0.9375rem`.
 * @cssproperty --ask-user-max-width - Widest the card grows. Default `40rem`.
 * @cssproperty --ask-user-radius - Corner radius of the card; controls use fractions of it. Default `0.75rem`.
 * @cssproperty --ask-user-spacing - Gap between blocks. Default `0.75rem`.
 * @cssproperty --ask-user-background - Card background.
 * @cssproperty --ask-user-color - Text colour.
 * @cssproperty --ask-user-muted-color - Descriptions, hints, countdown, field borders.
 * @cssproperty --ask-user-border-color - Card and option borders.
 * @cssproperty --ask-user-field-background - Background of text boxes and the cancel button.
 * @cssproperty --ask-user-accent-color - Submit button, checked options, switches.
 * @cssproperty --ask-user-accent-contrast-color - Text on the accent colour.
 * @cssproperty --ask-user-option-hover-background - An option row under the pointer.
 * @cssproperty --ask-user-recommended-background - Recommended badge background.
 * @cssproperty --ask-user-recommended-color - Recommended badge text.
 * @cssproperty --ask-user-error-color - Validation messages, timeouts, the last minute of the countdown.
 * @cssproperty --ask-user-error-background - Background of a refused submission's message.
 * @cssproperty --ask-user-success-color - "已提交 / Submitted" in the receipt.
 * @cssproperty --ask-user-focus-ring-color - Keyboard focus ring.
 */
export class AskUserCard extends AskUserCardView {
  static override styles = cardStyles;

  // Declared here rather than with decorators: the same reactive properties, without a decorator runtime
  // in the bundles. Internal state is declared in AskUserCardView.
  static override properties: PropertyDeclarations = {
    request: { attribute: false },
    onSubmit: { attribute: false },
    locale: {},
    strings: { attribute: false },
    endpoint: {},
    sessionId: { attribute: 'session-id' },
    fetch: { attribute: false },
    noAutofocus: { type: Boolean, attribute: 'no-autofocus' },
    _lang: { attribute: 'lang' },
  };

  /**
   * The `user_input_required` data or a pending interaction. Anything lacking string `id`, `toolCallId`, `title`,
   * `mode` renders nothing; malformed optional fields are dropped (see `normalizeRequest` in read-answer.ts).
   */
  declare request?: AskUserRequest | null;

  /**
   * Called with the validated answer. A returned promise keeps the card in "submitting"; it resolving
   * shows the receipt, rejecting (or resolving to `{ ok: false, status, error }` or a non-ok `Response`)
   * shows the error. Used instead of a provider's submission.
   */
  declare onSubmit?: (selections: string[], customInput: string, cancelled: boolean) => void | Promise<unknown>;

  /** `zh-CN` (default) or `en`; also read from the `lang` attribute, then from a provider. */
  declare locale?: string;

  /** Overrides for any subset of the built-in strings. */
  declare strings?: Partial<AskUserStrings>;

  /** Base URL of the routes: with it (or a provider) the card submits by itself. Wins over the provider's. */
  declare endpoint?: string;

  /** Session for a request that carries no `sessionId`. Wins over the provider's. */
  declare sessionId?: string;

  /** `fetch` for the card's own submissions. Wins over the provider's. */
  declare fetch?: typeof fetch;

  /** Do not move focus to the card when it appears (focus still moves to the receipt after a submit). */
  noAutofocus = false;

  private declare _lang?: string;
  /** What an enclosing `<ask-user-provider>` gives; updates re-render the card. */
  private _provided = new ContextConsumer(this, { context: askUserContext, subscribe: true });
  private declare _requestId?: string;
  private declare _timer?: ReturnType<typeof setTimeout>;

  /** The last `request` object and its normalized form: normalized once per object, not once per render. */
  private declare _normalized?: { raw: unknown; req: AskUserRequest | undefined };

  protected get _req(): AskUserRequest | undefined {
    const raw = this.request;
    let n = this._normalized;
    if (!n || n.raw !== raw) n = this._normalized = { raw, req: isAskUserRequest(raw) ? normalizeRequest(raw) : undefined };
    return n.req;
  }

  // ——— Public methods for a host that submits itself ———

  /**
   * The host's submission was accepted: show the receipt of what the card sent (or, if nothing was sent,
   * of what the controls hold). `at` defaults to now. Ignored once the card shows a receipt, so a late
   * call cannot turn "timed out" or "service restarted" into "continuing".
   */
  markSubmitted(at: string | Date = new Date()): void {
    const req = this._req;
    if (!req || this._phase === 'closed') return;
    this._close(receiptForAnswer(this._sent ?? readAnswer(req, this._draft), typeof at === 'string' ? at : at.toISOString()), true);
  }

  /**
   * Closes the card from an `interaction_resolved` event (e.g. another tab answered). Ignored when it
   * names another request.
   */
  markResolved(resolved: Pick<InteractionResolved, 'requestId' | 'status'> & Partial<InteractionResolved>): void {
    const req = this._req;
    if (!req || resolved.requestId !== req.id) return;
    const mine = this._sent && !this._sent.cancelled && resolved.status === 'answered' ? this._sent : undefined;
    this._close(
      {
        kind: resolved.status,
        at: resolved.at,
        selections: resolved.selections ?? mine?.selections,
        customInput: mine?.customInput,
        customInputLength: resolved.customInputLength,
      },
      true,
    );
  }

  /**
   * The host's submission failed: pass the client's `{ ok: false, status, error }` (or a thrown error).
   * 409 `already_answered` shows the first answer's receipt, 410 the timeout receipt, 409 `not_resumable`
   * the restart notice; 503 and network errors offer a retry; 422 asks for a change.
   */
  showError(result: SubmitFailure | Error | unknown): void {
    this._applyFailure(isSubmitFailure(result) ? result : failureFromThrown(result), false);
  }

  /**
   * The run this card's answer continued has ended: pass the `done` reason of the continuation stream
   * (`completed`, `paused` when the model asked again, `cancelled`, or `error`, also for a stream that broke
   * off). The answered receipt's "继续执行中…" becomes "已继续，任务完成" / "Continued; the task is done" and
   * so on, and is announced. Any other state (an open form, a cancelled or timed-out receipt) has no
   * "continuing" to end and ignores it, as does an unknown reason.
   */
  markRunEnded(reason: DoneReason): void {
    const r = this._receipt;
    if (this._phase !== 'closed' || r?.kind !== 'answered' || typeof RUN_NOTES[reason] !== 'string') return;
    this._receipt = { ...r, runEnded: reason };
    this._announce(this._s[RUN_NOTES[reason]]);
  }

  // ——— Lifecycle ———

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this._timer);
    this._timer = undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Back in the page: restart the countdown that disconnecting stopped.
    this.requestUpdate();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const provided = this._provided.value;
    this._locale = resolveLocale(this.locale || this._lang || provided?.locale);
    this._s = resolveStrings(this._locale, this.strings);
    if (!changed.has('request')) return;
    const req = this._req;
    if (req?.id !== this._requestId) {
      this._requestId = req?.id;
      this._phase = 'pending';
      this._draft = EMPTY_DRAFT;
      this._receipt = this._invalid = this._failure = this._sent = undefined;
      this._announcement = '';
      this._now = Date.now();
      if (req && !this.noAutofocus) this._focusNext = 'question';
    }
    if (!req || this._phase === 'closed') return;
    // A request that is already over shows its receipt directly; no event, the host set it so.
    const left = remainingMs(req.expiresAt, Date.now());
    let over: Receipt | undefined;
    if (req.status === 'expired' || (left !== null && left <= 0 && this._phase === 'pending')) over = { kind: 'expired', at: req.expiresAt };
    else if (req.resumable === false) over = { kind: 'not-resumable' };
    if (!over) return;
    this._close(over, false);
    if (this._focusNext === 'question') this._focusNext = 'receipt';
  }

  protected override updated(): void {
    this._schedule();
    super.updated();
  }

  // ——— Countdown ———

  private _schedule(): void {
    clearTimeout(this._timer);
    this._timer = undefined;
    const req = this._req;
    if (!req || !this.isConnected || this._phase === 'closed') return;
    const left = remainingMs(req.expiresAt, Date.now());
    if (left === null) return;
    // Wake at the next whole second of the remaining time, so the display never skips a number.
    this._timer = setTimeout(() => this._tick(), left <= 0 ? 0 : left % 1000 || 1000);
  }

  private _tick(): void {
    this._timer = undefined;
    this._now = Date.now();
    const req = this._req;
    if (!req) return;
    const left = remainingMs(req.expiresAt, this._now);
    // While a submission is in flight the server decides; its answer (or 410) closes the card.
    if (left !== null && left <= 0 && this._phase === 'pending') {
      this._close({ kind: 'expired', at: req.expiresAt }, this.matches(':focus-within'));
      this.dispatchEvent(new AskUserExpiredEvent({ requestId: req.id, toolCallId: req.toolCallId }));
    }
  }

  // ——— Submission ———

  protected _onSubmit(e: Event): void {
    e.preventDefault();
    const req = this._req;
    if (!req || this._phase !== 'pending' || !isKnownMode(req.mode)) return;
    const answer = readAnswer(req, this._draft);
    const check = validateAnswer(req, answer);
    if (!check.ok) {
      this._invalid = { field: check.field, key: check.key };
      this._announce(this._message(check.key));
      this._focusNext = 'invalid';
      return;
    }
    this._invalid = undefined;
    void this._send(answer);
  }

  protected _onCancel(): void {
    if (this._phase === 'pending') void this._send(CANCEL_ANSWER);
  }

  protected _onRetry(): void {
    if (this._phase === 'pending' && this._sent) void this._send(this._sent);
  }

  private async _send(answer: Answer): Promise<void> {
    const req = this._req;
    if (!req || this._phase !== 'pending' || req.resumable === false) return;
    const provided = this._provided.value;
    this._sent = answer;
    this._failure = undefined;
    this._phase = 'submitting';
    this._announce(answer.cancelled ? this._s.cancelling : this._s.submitting);
    const sessionId = req.sessionId || this.sessionId || provided?.sessionId || '';
    const { selections, customInput, cancelled } = answer;
    const event = new AskUserSubmitEvent({ requestId: req.id, toolCallId: req.toolCallId, sessionId, selections: [...selections], customInput, cancelled });
    this.dispatchEvent(event);
    if (event.defaultPrevented) return;

    const stillMine = () => this._req?.id === req.id && this._phase === 'submitting';
    const accepted = () => this._close(receiptForAnswer(answer, new Date().toISOString()), true);
    if (this.onSubmit) {
      let result: unknown;
      try {
        result = await this.onSubmit([...selections], customInput, cancelled);
      } catch (err) {
        if (stillMine()) this._applyFailure(failureFromThrown(err), true);
        return;
      }
      if (!stillMine()) return;
      const failure = await failureOfResult(result);
      if (failure) this._applyFailure(failure, true);
      else accepted();
      return;
    }

    if (!provided && this.endpoint === undefined) return this._cannotSend(req);
    if (!sessionId) {
      const message = 'No sessionId: set it on the request, on the card (session-id) or on <ask-user-provider session-id>.';
      return this._applyFailure({ status: 400, error: { code: 'invalid_request', message } }, true);
    }
    const result = await submitUserInput(
      { sessionId, requestId: req.id, selections: [...selections], customInput, cancelled },
      { endpoint: this.endpoint ?? provided?.endpoint ?? '/api', fetch: this.fetch ?? provided?.fetch },
    ).catch((err: unknown) => ({ ok: false as const, ...failureFromThrown(err) }));
    if (!stillMine()) return;
    if (!result.ok) return this._applyFailure(result, true);
    accepted();
    const { response, events } = result;
    this.dispatchEvent(new AskUserContinuedEvent({ requestId: req.id, toolCallId: req.toolCallId, sessionId, answer, response, events }));
  }

  /**
   * Nothing can send this answer: no provider, no `endpoint`, no `onSubmit`, and no listener took
   * `ask-user-submit` with `preventDefault()`. Waiting in "submitting" would wait for ever, so the card
   * says so. Decided when the user submits, not when the card appears: a provider may still come (the
   * context root in context.ts hands a late provider to the card), so the form stays open with the
   * message, and the next submit uses whatever provider or endpoint is there by then.
   */
  private _cannotSend(req: AskUserRequest): void {
    const message = 'Nothing can send this answer: no <ask-user-provider>, endpoint or onSubmit, and no ask-user-submit listener called preventDefault().';
    const failure: SubmitFailure = { error: { code: 'no_submitter', message } };
    const outcome = { kind: 'error', key: 'errorNoSubmitter', retry: false } as const;
    this._phase = 'pending';
    this._failure = outcome;
    this._announce(this._message(outcome.key));
    this._focusNext = 'server-error';
    this.dispatchEvent(new AskUserErrorEvent({ requestId: req.id, failure, outcome }));
  }

  private _applyFailure(failure: SubmitFailure, fromCard: boolean): void {
    const req = this._req;
    if (!req || this._phase === 'closed') return;
    const outcome = failureOutcome(failure);
    if (outcome.kind === 'receipt') {
      this._close(outcome.receipt, true);
    } else {
      this._phase = 'pending';
      this._failure = outcome;
      this._announce(this._message(outcome.key));
      this._focusNext = 'server-error';
    }
    if (fromCard) this.dispatchEvent(new AskUserErrorEvent({ requestId: req.id, failure, outcome }));
  }
}

// A second copy of the widget on the page (the other bundle, another version) finds the tag taken and
// leaves it: the first copy's element serves the page, and the shared context key keeps them compatible.
if (!customElements.get('ask-user-card')) customElements.define('ask-user-card', AskUserCard);

declare global {
  interface HTMLElementTagNameMap {
    'ask-user-card': AskUserCard;
  }
}
