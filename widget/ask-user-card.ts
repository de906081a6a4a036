import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { live } from 'lit/directives/live.js';
import { consume } from '@lit/context';
import type { Answer, InteractionResolved } from '../plugin/schema.js';
import { cardStyles } from './ask-user-card.styles.js';
import { submitUserInput } from './client.js';
import { askUserContext, type AskUserContextValue } from './context.js';
import { AskUserContinuedEvent, AskUserErrorEvent, AskUserExpiredEvent, AskUserSubmitEvent } from './events.js';
import {
  CANCEL_ANSWER,
  EMPTY_DRAFT,
  MAX_CUSTOM_INPUT,
  formatRemaining,
  isAskUserRequest,
  isChoice,
  isKnownMode,
  readAnswer,
  remainingMs,
  validateAnswer,
  type AnswerDraft,
  type AnswerField,
  type AskUserRequest,
} from './read-answer.js';
import {
  failureFromThrown,
  failureOutcome,
  receiptForAnswer,
  receiptTitleKey,
  selectionLabels,
  type FailureOutcome,
  type Receipt,
  type SubmitFailure,
} from './receipt.js';
import { formatMessage, resolveLocale, resolveStrings, type AskUserLocale, type AskUserStrings } from './strings.js';

export type { AskUserRequest } from './read-answer.js';

type Phase = 'pending' | 'submitting' | 'closed';
type FocusTarget = 'question' | 'receipt' | 'invalid' | 'server-error';

/** Shown while the countdown is under this, so the last minute stands out. */
const SOON_MS = 60_000;

/**
 * @summary The form an `ask_user` tool call asks for: renders the question with native controls,
 * checks the answer with the server's rules, submits it, and turns into a read-only receipt.
 *
 * How an answer leaves the card, first match wins: `ask-user-submit` is fired (cancelable; prevented →
 * the host submits and reports back with `markSubmitted()` / `showError()`); else `onSubmit` is called;
 * else, under an `<ask-user-provider>` or with its own `endpoint`, the card posts through
 * `submitUserInput` and fires `ask-user-continued`; else it waits in "submitting" for the host.
 * Nothing is sent for an answer the server's rules refuse, nor for `resumable: false`.
 *
 * Public methods: `markSubmitted(at?)`, `markResolved(interactionResolved)`, `showError(result)`.
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
 * @csspart receipt-note - What happens next ("继续执行中…", "任务已停止", …).
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
@customElement('ask-user-card')
export class AskUserCard extends LitElement {
  static override styles = cardStyles;

  /** The `user_input_required` data or a pending interaction. Anything lacking string `id`, `toolCallId`, `title`, `mode` renders nothing. */
  @property({ attribute: false }) request?: AskUserRequest | null;

  /**
   * Called with the validated answer. A returned promise keeps the card in "submitting"; it resolving
   * shows the receipt, rejecting (or resolving to `{ ok: false, status, error }` or a non-ok `Response`)
   * shows the error. Used instead of a provider's submission.
   */
  @property({ attribute: false }) onSubmit?: (selections: string[], customInput: string, cancelled: boolean) => void | Promise<unknown>;

  /** `zh-CN` (default) or `en`; also read from the `lang` attribute, then from a provider. */
  @property() locale?: string;

  /** Overrides for any subset of the built-in strings. */
  @property({ attribute: false }) strings?: Partial<AskUserStrings>;

  /** Base URL of the routes: with it (or a provider) the card submits by itself. Wins over the provider's. */
  @property() endpoint?: string;

  /** Session for a request that carries no `sessionId`. Wins over the provider's. */
  @property({ attribute: 'session-id' }) sessionId?: string;

  /** `fetch` for the card's own submissions. Wins over the provider's. */
  @property({ attribute: false }) fetch?: typeof fetch;

  /** Do not move focus to the card when it appears (focus still moves to the receipt after a submit). */
  @property({ type: Boolean, attribute: 'no-autofocus' }) noAutofocus = false;

  @consume({ context: askUserContext, subscribe: true })
  @state()
  private _context?: AskUserContextValue;

  @property({ attribute: 'lang' }) private _langAttr?: string;

  @state() private _phase: Phase = 'pending';
  @state() private _draft: AnswerDraft = EMPTY_DRAFT;
  @state() private _receipt?: Receipt;
  @state() private _invalid?: { field: AnswerField; key: keyof AskUserStrings };
  @state() private _failure?: Extract<FailureOutcome, { kind: 'error' }>;
  @state() private _announcement = '';
  @state() private _now = Date.now();

  @query('fieldset') private _fieldset?: HTMLFieldSetElement;

  private _requestId?: string;
  private _sent?: Answer;
  private _focusNext?: FocusTarget;
  private _timer?: ReturnType<typeof setTimeout>;
  private _s: AskUserStrings = resolveStrings('zh-CN');
  private _locale: AskUserLocale = 'zh-CN';

  /** The request, when it passes the minimal check; otherwise the card renders nothing. */
  private get _req(): AskUserRequest | undefined {
    return isAskUserRequest(this.request) ? this.request : undefined;
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
    const answer = this._sent ?? readAnswer(req, this._draft);
    this._close(receiptForAnswer(answer, toIso(at)), true);
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
    this._applyFailure(isFailure(result) ? result : failureFromThrown(result), false);
  }

  // ——— Lifecycle ———

  override connectedCallback(): void {
    super.connectedCallback();
    this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this._timer);
    this._timer = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    this._locale = resolveLocale(this.locale || this._langAttr || this._context?.locale);
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
    const target = this._focusNext;
    if (!target) return;
    this._focusNext = undefined;
    const root = this.renderRoot as ShadowRoot;
    let el: HTMLElement | null | undefined;
    if (target === 'question') el = this._fieldset;
    else if (target === 'receipt') el = root.querySelector<HTMLElement>('.receipt');
    else if (target === 'server-error') el = root.querySelector<HTMLElement>('[part~="retry-button"]') ?? root.querySelector<HTMLElement>('.server-error');
    else el = root.querySelector<HTMLElement>('input[aria-invalid="true"]:checked, [aria-invalid="true"]');
    el?.focus();
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
    const wait = left <= 0 ? 0 : left % 1000 || 1000;
    this._timer = setTimeout(() => this._tick(), wait);
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

  private _onSubmit(e: Event): void {
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

  private _onCancel(): void {
    if (this._phase !== 'pending') return;
    void this._send(CANCEL_ANSWER);
  }

  private _retry(): void {
    if (this._phase !== 'pending' || !this._sent) return;
    void this._send(this._sent);
  }

  private async _send(answer: Answer): Promise<void> {
    const req = this._req;
    if (!req || this._phase !== 'pending' || req.resumable === false) return;
    this._sent = answer;
    this._failure = undefined;
    this._phase = 'submitting';
    this._announce(answer.cancelled ? this._s.cancelling : this._s.submitting);
    const sessionId = req.sessionId || this.sessionId || this._context?.sessionId || '';
    const event = new AskUserSubmitEvent({
      requestId: req.id,
      toolCallId: req.toolCallId,
      sessionId,
      selections: [...answer.selections],
      customInput: answer.customInput,
      cancelled: answer.cancelled,
    });
    this.dispatchEvent(event);
    if (event.defaultPrevented) return;

    const stillMine = () => this._req?.id === req.id && this._phase === 'submitting';
    if (this.onSubmit) {
      let result: unknown;
      try {
        result = await this.onSubmit([...answer.selections], answer.customInput, answer.cancelled);
      } catch (err) {
        if (stillMine()) this._applyFailure(failureFromThrown(err), true);
        return;
      }
      if (!stillMine()) return;
      const failure = await failureOfResult(result);
      if (failure) this._applyFailure(failure, true);
      else this._close(receiptForAnswer(answer, new Date().toISOString()), true);
      return;
    }

    if (!this._context && this.endpoint === undefined) return; // The host listens to ask-user-submit.
    if (!sessionId) {
      this._applyFailure(
        {
          status: 400,
          error: {
            code: 'invalid_request',
            message: 'No sessionId: set it on the request, on the card (session-id) or on <ask-user-provider session-id>.',
          },
        },
        true,
      );
      return;
    }
    const result = await submitUserInput(
      { sessionId, requestId: req.id, selections: [...answer.selections], customInput: answer.customInput, cancelled: answer.cancelled },
      { endpoint: this.endpoint ?? this._context?.endpoint ?? '/api', fetch: this.fetch ?? this._context?.fetch },
    ).catch((err: unknown) => ({ ok: false as const, ...failureFromThrown(err) }));
    if (!stillMine()) return;
    if (!result.ok) {
      this._applyFailure(result, true);
      return;
    }
    this._close(receiptForAnswer(answer, new Date().toISOString()), true);
    this.dispatchEvent(
      new AskUserContinuedEvent({
        requestId: req.id,
        toolCallId: req.toolCallId,
        sessionId,
        answer,
        response: result.response,
        events: result.events,
      }),
    );
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

  private _close(receipt: Receipt, focus: boolean): void {
    this._phase = 'closed';
    this._receipt = receipt;
    this._invalid = this._failure = undefined;
    const s = this._s;
    const title = this._message(receiptTitleKey(receipt.kind));
    const note = this._noteKey(receipt);
    this._announce(note ? `${title}${this._locale === 'en' ? '. ' : '。'}${s[note]}` : title);
    if (focus) this._focusNext = 'receipt';
  }

  // ——— Input handling ———

  private _setDraft(patch: Partial<AnswerDraft>): void {
    this._draft = { ...this._draft, ...patch };
    const req = this._req;
    if (!this._invalid || !req) return;
    // After a failed attempt, keep the message honest as the user fixes the answer.
    const check = validateAnswer(req, readAnswer(req, this._draft));
    this._invalid = check.ok ? undefined : { field: check.field, key: check.key };
  }

  private _onChoice(e: Event): void {
    const input = e.target as HTMLInputElement;
    const req = this._req;
    if (!req) return;
    const id = input.value;
    if (req.mode === 'single') {
      this._setDraft({ selected: input.checked ? [id] : [] });
    } else {
      const rest = this._draft.selected.filter((s) => s !== id);
      this._setDraft({ selected: input.checked ? [...rest, id] : rest });
    }
  }

  private _onText(e: Event): void {
    this._setDraft({ text: (e.target as HTMLInputElement | HTMLTextAreaElement).value });
  }

  private _onOther(e: Event): void {
    this._setDraft({ other: (e.target as HTMLTextAreaElement).value });
  }

  /** Ctrl/⌘+Enter submits from a textarea, where plain Enter is a new line. */
  private _onKeydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && (e.target as Element).localName === 'textarea') {
      e.preventDefault();
      (e.currentTarget as HTMLFormElement).requestSubmit();
    }
  }

  /** A repeated message would not be spoken again: a trailing no-break space makes the text differ. */
  private _announce(text: string): void {
    this._announcement = text === this._announcement ? `${text}\u00a0` : text;
  }

  // ——— Rendering ———

  private _message(key: keyof AskUserStrings): string {
    return formatMessage(this._s[key], { max: MAX_CUSTOM_INPUT, mode: this._req?.mode ?? '' });
  }

  private _noteKey(receipt: Receipt): keyof AskUserStrings | undefined {
    if (receipt.kind === 'answered') return 'continuing';
    if (receipt.kind === 'cancelled') return 'cancelledAction';
    if (receipt.kind === 'expired') return 'expiredAction';
    return undefined;
  }

  protected override render() {
    const req = this._req;
    if (!req) return nothing;
    return html`<div part="base" class="base">
      ${this._phase === 'closed' && this._receipt ? this._renderReceipt(req, this._receipt) : this._renderForm(req)}
      <div class="sr-only" role="status" aria-live="polite" aria-atomic="true">${this._announcement}</div>
    </div>`;
  }

  private _renderForm(req: AskUserRequest): TemplateResult {
    const s = this._s;
    const busy = this._phase === 'submitting';
    const known = isKnownMode(req.mode);
    const selectionsError = this._invalid?.field === 'selections' ? this._message(this._invalid.key) : '';
    const describedBy = ids(req.description && 'description', selectionsError && 'error-selections');
    return html`<form part="form" novalidate aria-busy=${busy ? 'true' : 'false'} @submit=${this._onSubmit} @keydown=${this._onKeydown}>
      <fieldset part="fieldset" tabindex="-1" aria-describedby=${describedBy || nothing}>
        <legend part="title" id="title">${req.title}</legend>
        ${req.description ? html`<p part="description" class="description" id="description">${req.description}</p>` : nothing}
        ${!known
          ? html`<p part="hint" class="hint">${this._message('unsupportedMode')}</p>`
          : isChoice(req.mode)
            ? this._renderOptions(req, selectionsError)
            : this._renderField(req)}
        ${known && isChoice(req.mode) && req.allowCustom ? this._renderOther() : nothing}
      </fieldset>
      ${this._renderFailure()} ${this._renderExpiry(req)}
      <div part="actions" class="actions">
        ${known
          ? html`<button part="submit-button" class="primary" type="submit" aria-disabled=${busy ? 'true' : 'false'}>
              ${busy && !this._sent?.cancelled ? s.submitting : req.submitLabel || s.submit}
            </button>`
          : nothing}
        <button part="cancel-button" type="button" aria-disabled=${busy ? 'true' : 'false'} @click=${this._onCancel}>
          ${busy && this._sent?.cancelled ? s.cancelling : s.cancel}
        </button>
      </div>
    </form>`;
  }

  private _renderOptions(req: AskUserRequest, error: string): TemplateResult {
    const s = this._s;
    const type = req.mode === 'single' ? 'radio' : 'checkbox';
    const toggle = req.mode === 'toggle';
    const hint = req.mode === 'multiple' ? s.multipleHint : toggle ? s.toggleHint : '';
    const picked = new Set(this._draft.selected);
    return html`<div part="options" class="options">
        ${(req.options ?? []).map((o, i) => {
          const describedBy = ids(o.description && `option-${i}-description`, hint && 'hint');
          return html`<div part="option" class="option">
            <input
              part="control"
              id="option-${i}"
              type=${type}
              role=${toggle ? 'switch' : nothing}
              name="choice"
              .value=${o.id}
              .checked=${live(picked.has(o.id))}
              aria-describedby=${describedBy || nothing}
              aria-invalid=${error ? 'true' : nothing}
              @change=${this._onChoice}
            />
            <label part="option-label" for="option-${i}"
              >${o.label}${o.recommended ? html`<span part="recommended-badge" class="badge">${s.recommended}</span>` : nothing}</label
            >
            ${o.description
              ? html`<span part="option-description" class="option-description" id="option-${i}-description">${o.description}</span>`
              : nothing}
          </div>`;
        })}
      </div>
      ${hint ? html`<p part="hint" class="hint" id="hint">${hint}</p>` : nothing}
      ${error ? html`<p part="error" class="error" id="error-selections">${error}</p>` : nothing}`;
  }

  private _renderField(req: AskUserRequest): TemplateResult {
    const s = this._s;
    const error = this._invalid?.field === 'customInput' ? this._message(this._invalid.key) : '';
    const hint =
      req.mode === 'number' ? s.numberHint : req.mode === 'date' ? s.dateHint : req.mode === 'directory' ? s.directoryHint : '';
    const describedBy = ids(req.description && 'description', hint && 'hint', error && 'error-customInput') || nothing;
    const invalid = error ? 'true' : nothing;
    const control =
      req.mode === 'text'
        ? html`<textarea
            part="field"
            id="field"
            rows="4"
            maxlength=${MAX_CUSTOM_INPUT}
            placeholder=${s.textPlaceholder}
            aria-labelledby="title"
            aria-describedby=${describedBy}
            aria-invalid=${invalid}
            .value=${live(this._draft.text)}
            @input=${this._onText}
          ></textarea>`
        : html`<input
            part="field"
            id="field"
            type=${req.mode === 'number' ? 'number' : req.mode === 'date' ? 'date' : 'text'}
            step=${req.mode === 'number' ? 'any' : nothing}
            inputmode=${req.mode === 'number' ? 'decimal' : nothing}
            placeholder=${req.mode === 'directory' ? s.directoryPlaceholder : nothing}
            spellcheck=${req.mode === 'directory' ? 'false' : nothing}
            autocomplete="off"
            autocapitalize=${req.mode === 'directory' ? 'off' : nothing}
            maxlength=${req.mode === 'directory' ? MAX_CUSTOM_INPUT : nothing}
            aria-labelledby="title"
            aria-describedby=${describedBy}
            aria-invalid=${invalid}
            .value=${live(this._draft.text)}
            @input=${this._onText}
            @change=${this._onText}
          />`;
    return html`${control} ${hint ? html`<p part="hint" class="hint" id="hint">${hint}</p>` : nothing}
      ${error ? html`<p part="error" class="error" id="error-customInput">${error}</p>` : nothing}`;
  }

  private _renderOther(): TemplateResult {
    const s = this._s;
    const error = this._invalid?.field === 'customInput' ? this._message(this._invalid.key) : '';
    return html`<div part="custom" class="custom">
      <label part="custom-label" class="field-label" for="other">${s.other}</label>
      <textarea
        part="custom-input"
        id="other"
        rows="2"
        maxlength=${MAX_CUSTOM_INPUT}
        placeholder=${s.otherPlaceholder}
        aria-describedby=${error ? 'error-customInput' : nothing}
        aria-invalid=${error ? 'true' : nothing}
        .value=${live(this._draft.other)}
        @input=${this._onOther}
      ></textarea>
      ${error ? html`<p part="error" class="error" id="error-customInput">${error}</p>` : nothing}
    </div>`;
  }

  private _renderFailure() {
    const f = this._failure;
    if (!f) return nothing;
    return html`<div part="server-error" class="server-error" tabindex="-1">
      <p>${this._message(f.key)}</p>
      ${f.detail ? html`<p class="detail">${this._s.errorDetail}${f.detail}</p>` : nothing}
      ${f.retry && this._sent
        ? html`<button part="retry-button" type="button" @click=${this._retry}>${this._s.retry}</button>`
        : nothing}
    </div>`;
  }

  private _renderExpiry(req: AskUserRequest) {
    const left = remainingMs(req.expiresAt, this._now);
    if (left === null) return nothing;
    return html`<p part="expiry" class="expiry ${left < SOON_MS ? 'soon' : ''}">
      ${formatMessage(this._s.expiresIn, { time: formatRemaining(left) })}
    </p>`;
  }

  private _renderReceipt(req: AskUserRequest, r: Receipt): TemplateResult {
    const s = this._s;
    const note = this._noteKey(r);
    const answered = r.kind === 'answered' || r.kind === 'elsewhere';
    const labels = r.selections ? selectionLabels(req, r.selections) : [];
    const typed = r.customInput ?? '';
    const showAnswer = answered && (r.selections !== undefined || r.customInput !== undefined);
    return html`<div part="receipt" class="receipt" data-kind=${r.kind} tabindex="-1" role="group" aria-labelledby="receipt-status">
      <p part="receipt-question" class="receipt-question">${req.title}</p>
      <p part="receipt-status" class="receipt-status" id="receipt-status">${this._message(receiptTitleKey(r.kind))}</p>
      ${showAnswer
        ? html`<dl part="receipt-answer" class="receipt-answer">
            ${isChoice(req.mode) ? html`<dt>${s.receiptSelections}</dt><dd>${labels.length ? labels.join('、') : s.receiptNothing}</dd>` : nothing}
            ${typed || !isChoice(req.mode)
              ? html`<dt>${s.receiptCustom}</dt><dd>${typed || s.receiptNothing}</dd>`
              : nothing}
          </dl>`
        : nothing}
      ${r.at ? html`<p part="receipt-time" class="receipt-time"><time datetime=${r.at}>${formatMessage(s.receiptAt, { time: this._formatTime(r.at) })}</time></p>` : nothing}
      ${note ? html`<p part="receipt-note" class="receipt-note">${s[note]}</p>` : nothing}
    </div>`;
  }

  private _formatTime(iso: string): string {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return iso;
    return new Intl.DateTimeFormat(this._locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(t);
  }
}

const ids = (...parts: Array<string | false | undefined | null | ''>) => parts.filter(Boolean).join(' ');

const toIso = (at: string | Date) => (typeof at === 'string' ? at : at.toISOString());

const isFailure = (value: unknown): value is SubmitFailure =>
  typeof value === 'object' && value !== null && !(value instanceof Error) && ('error' in value || 'status' in value);

/** What `onSubmit` resolved to, read as a failure when it is one; anything else counts as accepted. */
async function failureOfResult(result: unknown): Promise<SubmitFailure | undefined> {
  if (result instanceof Response) {
    if (result.ok) return undefined;
    const body: unknown = await result.clone().json().catch(() => undefined);
    const error = typeof body === 'object' && body !== null && 'error' in body ? (body.error as SubmitFailure['error']) : undefined;
    return { status: result.status, error };
  }
  if (typeof result === 'object' && result !== null && 'ok' in result && result.ok === false) return result as SubmitFailure;
  return undefined;
}

declare global {
  interface HTMLElementTagNameMap {
    'ask-user-card': AskUserCard;
  }
}
