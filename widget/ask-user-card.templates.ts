import { LitElement, html, nothing, type PropertyDeclarations, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { Answer, DoneReason } from '../plugin/contract/schema.js';
import {
  EMPTY_DRAFT,
  MAX_CUSTOM_INPUT,
  formatRemaining,
  isChoice,
  isKnownMode,
  readAnswer,
  remainingMs,
  validateAnswer,
  type AnswerDraft,
  type AnswerField,
  type AskUserRequest,
} from './read-answer.js';
import { receiptTitleKey, selectionLabels, type FailureOutcome, type Receipt } from './receipt.js';
import { DEFAULT_LOCALE, formatMessage, resolveStrings, type AskUserLocale, type AskUserStrings } from './strings.js';

export type Phase = 'pending' | 'submitting' | 'closed';
type Key = keyof AskUserStrings;

/** The note of an answered receipt once its run ended, per `done` reason. */
export const RUN_NOTES: Readonly<Record<DoneReason, Key>> = { completed: 'runCompleted', paused: 'runPaused', cancelled: 'runCancelled', error: 'runError' };

/** What happens next, under a receipt's status. */
export function receiptNoteKey({ kind, runEnded }: Receipt): Key | undefined {
  return kind === 'answered' ? (runEnded ? RUN_NOTES[runEnded] : 'continuing') : kind === 'cancelled' ? 'cancelledAction' : kind === 'expired' ? 'expiredAction' : undefined;
}

const formatTime = (iso: string, locale: AskUserLocale): string => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(t);
};

/**
 * The read-only receipt. One template for the live card and for a host redrawing a question that closed
 * before a reload (the demo's history), so both say and look the same; put it inside `cardStyles`.
 */
export function receiptTemplate(req: Pick<AskUserRequest, 'title' | 'mode' | 'options'>, r: Receipt, s: AskUserStrings, locale: AskUserLocale): TemplateResult {
  const note = receiptNoteKey(r);
  const choice = isChoice(req.mode);
  const typed = r.customInput ?? '';
  const labels = r.selections ? selectionLabels(req, r.selections) : [];
  const showAnswer = (r.kind === 'answered' || r.kind === 'elsewhere') && (r.selections !== undefined || r.customInput !== undefined);
  return html`<div part="receipt" class="receipt" data-kind=${r.kind} tabindex="-1" role="group" aria-labelledby="receipt-status">
    <p part="receipt-question" class="receipt-question">${req.title}</p>
    ${r.late ? html`<p part="receipt-note" class="receipt-note late">${s.lateAnswerNotUsed}</p>` : nothing}
    <p part="receipt-status" class="receipt-status" id="receipt-status">${formatMessage(s[receiptTitleKey(r.kind)], { mode: req.mode })}</p>
    ${showAnswer
      ? html`<dl part="receipt-answer" class="receipt-answer">
          ${choice ? html`<dt>${s.receiptSelections}</dt><dd>${labels.length ? labels.join(s.listSeparator) : s.receiptNothing}</dd>` : nothing}
          ${typed || !choice ? html`<dt>${s.receiptCustom}</dt><dd>${typed || s.receiptNothing}</dd>` : nothing}
        </dl>`
      : nothing}
    ${r.at
      ? html`<p part="receipt-time" class="receipt-time"><time datetime=${r.at}>${formatMessage(s.receiptAt, { time: formatTime(r.at, locale) })}</time></p>`
      : nothing}
    ${note ? html`<p part="receipt-note" class="receipt-note" data-run=${r.runEnded ?? nothing}>${s[note]}</p>` : nothing}
  </div>`;
}

/** Shown while the countdown is under this, so the last minute stands out. */
const SOON_MS = 60_000;

const ids = (...parts: Array<string | false | undefined>) => parts.filter(Boolean).join(' ') || nothing;
const hintOf = (text: string) => (text ? html`<p part="hint" class="hint" id="hint">${text}</p>` : nothing);
const errorOf = (field: AnswerField, text: string) =>
  text ? html`<p part="error" class="error" id="error-${field}">${text}</p>` : nothing;

/**
 * What `<ask-user-card>` shows: the state it is drawn from, every template, the input handlers that keep
 * the draft in step with the controls, and where focus and the live region go after a change. The element
 * (ask-user-card.ts) adds the public properties and methods, the lifecycle, the countdown and what happens
 * on submit; this base class calls only the three button handlers it declares. Its `_` members are
 * internal even where `protected`: the built bundles rename them (vite.config.ts, manglePrivateMembers).
 */
export abstract class AskUserCardView extends LitElement {
  static override properties: PropertyDeclarations = {
    _phase: { state: true },
    _draft: { state: true },
    _receipt: { state: true },
    _invalid: { state: true },
    _failure: { state: true },
    _announcement: { state: true },
    _now: { state: true },
  };

  protected _phase: Phase = 'pending';
  protected _draft: AnswerDraft = EMPTY_DRAFT;
  protected declare _receipt?: Receipt;
  protected declare _invalid?: { field: AnswerField; key: Key };
  protected declare _failure?: Extract<FailureOutcome, { kind: 'error' }>;
  protected _announcement = '';
  protected _now = Date.now();
  /** The answer last handed to a submission, for the busy labels, retries and the receipt. */
  protected declare _sent?: Answer;
  protected _s: AskUserStrings = resolveStrings(DEFAULT_LOCALE);
  protected _locale: AskUserLocale = DEFAULT_LOCALE;

  private declare _failuresOf?: string;
  private _mayHaveLanded = false;

  /** Where focus goes after the next render: set by whatever changed what the user should look at. */
  protected declare _focusNext?: 'question' | 'receipt' | 'invalid' | 'server-error';

  /** The request, when it passes the minimal check; otherwise the card renders nothing. */
  protected abstract get _req(): AskUserRequest | undefined;
  // What the buttons do, in the element; lit calls each handler with the element as `this`.
  protected abstract _onSubmit(e: Event): void;
  protected abstract _onCancel(): void;
  protected abstract _onRetry(): void;

  // ——— Input handling: the draft follows the controls ———

  protected _setDraft(patch: Partial<AnswerDraft>): void {
    this._draft = { ...this._draft, ...patch };
    const req = this._req;
    if (!this._invalid || !req) return;
    // After a failed attempt, keep the message honest as the user fixes the answer.
    const check = validateAnswer(req, readAnswer(req, this._draft));
    this._invalid = check.ok ? undefined : { field: check.field, key: check.key };
  }

  private _onChoice(e: Event): void {
    const { value: id, checked } = e.target as HTMLInputElement;
    const req = this._req;
    if (!req) return;
    const rest = req.mode === 'single' ? [] : this._draft.selected.filter((s) => s !== id);
    this._setDraft({ selected: checked ? [...rest, id] : rest });
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

  /** Shows the read-only receipt and says so in the live region. */
  protected _close(receipt: Receipt, focus: boolean): void {
    // After a failure that may have reached the server, the first answer may well be this card's own.
    if (receipt.late && (this._mayHaveLanded || !this._sent)) receipt = { ...receipt, late: undefined };
    this._phase = 'closed';
    this._receipt = receipt;
    this._invalid = this._failure = undefined;
    const note = this._noteKey(receipt);
    const said = [receipt.late && this._s.lateAnswerNotUsed, this._message(receiptTitleKey(receipt.kind)), note && this._s[note]].filter(Boolean);
    this._announce(said.join(this._locale === 'en' ? '. ' : '。'));
    if (focus) this._focusNext = 'receipt';
  }

  /** A repeated message would not be spoken again: a trailing no-break space makes the text differ. */
  protected _announce(text: string): void {
    this._announcement = text === this._announcement ? `${text}\u00a0` : text;
  }

  /**
   * Moves focus where the last change asked for it, once the DOM shows it; and notes a retryable failure
   * (network, 503), after which a 409 may be this card's own earlier answer rather than someone else's.
   */
  protected override updated(): void {
    if (this._req?.id !== this._failuresOf) {
      this._failuresOf = this._req?.id;
      this._mayHaveLanded = false;
    }
    if (this._failure?.retry) this._mayHaveLanded = true;
    const target = this._focusNext;
    if (!target) return;
    this._focusNext = undefined;
    const $ = (selector: string) => this.renderRoot.querySelector<HTMLElement>(selector);
    const el =
      target === 'question'
        ? $('fieldset')
        : target === 'receipt'
          ? $('.receipt')
          : target === 'server-error'
            ? ($('[part~="retry-button"]') ?? $('.server-error'))
            : $('input[aria-invalid="true"]:checked, [aria-invalid="true"]');
    el?.focus();
  }

  protected _message(key: Key): string {
    return formatMessage(this._s[key], { max: MAX_CUSTOM_INPUT, mode: this._req?.mode ?? '' });
  }

  /** What happens next, under a receipt's status. */
  protected _noteKey(r: Receipt): Key | undefined {
    return receiptNoteKey(r);
  }

  /** The validation message of `field`, or '' when it is fine. */
  private _errorText(field: AnswerField): string {
    return this._invalid?.field === field ? this._message(this._invalid.key) : '';
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
    const choice = known && isChoice(req.mode);
    const error = this._errorText('selections');
    return html`<form part="form" novalidate aria-busy=${busy} @submit=${this._onSubmit} @keydown=${this._onKeydown}>
      <fieldset part="fieldset" tabindex="-1" aria-describedby=${ids(req.description && 'description', error && 'error-selections')}>
        <legend part="title" id="title">${req.title}</legend>
        ${req.description ? html`<p part="description" class="description" id="description">${req.description}</p>` : nothing}
        ${!known
          ? html`<p part="hint" class="hint">${this._message('unsupportedMode')}</p>`
          : choice
            ? this._renderOptions(req, error)
            : this._renderField(req)}
        ${choice && req.allowCustom ? this._renderOther() : nothing}
      </fieldset>
      ${this._renderFailure()} ${this._renderExpiry(req)}
      <div part="actions" class="actions">
        ${known
          ? html`<button part="submit-button" class="primary" type="submit" aria-disabled=${busy}>
              ${busy && !this._sent?.cancelled ? s.submitting : req.submitLabel || s.submit}
            </button>`
          : nothing}
        <button part="cancel-button" type="button" aria-disabled=${busy} @click=${this._onCancel}>
          ${busy && this._sent?.cancelled ? s.cancelling : s.cancel}
        </button>
      </div>
    </form>`;
  }

  /** One renderer for single (radios), multiple (checkboxes) and toggle (checkboxes with the switch role). */
  private _renderOptions(req: AskUserRequest, error: string): TemplateResult {
    const s = this._s;
    const toggle = req.mode === 'toggle';
    // A field's error replaces its hint: the two would say nearly the same thing one above the other.
    const hint = error ? '' : req.mode === 'multiple' ? s.multipleHint : toggle ? s.toggleHint : '';
    const picked = new Set(this._draft.selected);
    return html`<div part="options" class="options">
        ${(req.options ?? []).map(
          (o, i) => html`<div part="option" class="option">
            <input
              part="control"
              id="option-${i}"
              type=${req.mode === 'single' ? 'radio' : 'checkbox'}
              role=${toggle ? 'switch' : nothing}
              name="choice"
              .value=${o.id}
              .checked=${live(picked.has(o.id))}
              aria-describedby=${ids(o.description && `option-${i}-description`, hint && 'hint')}
              aria-invalid=${error ? 'true' : nothing}
              @change=${this._onChoice}
            />
            <label part="option-label" for="option-${i}"
              >${o.label}${o.recommended ? html`<span part="recommended-badge" class="badge">${s.recommended}</span>` : nothing}</label
            >
            ${o.description
              ? html`<span part="option-description" class="option-description" id="option-${i}-description">${o.description}</span>`
              : nothing}
          </div>`,
        )}
      </div>
      ${hintOf(hint)} ${errorOf('selections', error)}`;
  }

  private _renderField(req: AskUserRequest): TemplateResult {
    const s = this._s;
    const { mode } = req;
    const error = this._errorText('customInput');
    const hint = error ? '' : mode === 'number' ? s.numberHint : mode === 'date' ? s.dateHint : mode === 'directory' ? s.directoryHint : '';
    const describedBy = ids(req.description && 'description', hint && 'hint', error && 'error-customInput');
    const invalid = error ? 'true' : nothing;
    const directory = mode === 'directory';
    const control =
      mode === 'text'
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
            type=${mode === 'number' || mode === 'date' ? mode : 'text'}
            step=${mode === 'number' ? 'any' : nothing}
            inputmode=${mode === 'number' ? 'decimal' : nothing}
            placeholder=${directory ? s.directoryPlaceholder : nothing}
            spellcheck=${directory ? 'false' : nothing}
            autocomplete="off"
            autocapitalize=${directory ? 'off' : nothing}
            maxlength=${directory ? MAX_CUSTOM_INPUT : nothing}
            aria-labelledby="title"
            aria-describedby=${describedBy}
            aria-invalid=${invalid}
            .value=${live(this._draft.text)}
            @input=${this._onText}
            @change=${this._onText}
          />`;
    return html`${control} ${hintOf(hint)} ${errorOf('customInput', error)}`;
  }

  private _renderOther(): TemplateResult {
    const error = this._errorText('customInput');
    return html`<div part="custom" class="custom">
      <label part="custom-label" class="field-label" for="other">${this._s.other}</label>
      <textarea
        part="custom-input"
        id="other"
        rows="2"
        maxlength=${MAX_CUSTOM_INPUT}
        placeholder=${this._s.otherPlaceholder}
        aria-describedby=${error ? 'error-customInput' : nothing}
        aria-invalid=${error ? 'true' : nothing}
        .value=${live(this._draft.other)}
        @input=${this._onOther}
      ></textarea>
      ${errorOf('customInput', error)}
    </div>`;
  }

  private _renderFailure() {
    const f = this._failure;
    if (!f) return nothing;
    return html`<div part="server-error" class="server-error" tabindex="-1">
      <p>${this._message(f.key)}</p>
      ${f.detail ? html`<p class="detail">${this._s.errorDetail}${f.detail}</p>` : nothing}
      ${f.retry && this._sent
        ? html`<button part="retry-button" type="button" @click=${this._onRetry}>${this._s.retry}</button>`
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
    return receiptTemplate(req, r, this._s, this._locale);
  }
}
