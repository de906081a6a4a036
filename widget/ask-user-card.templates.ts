/**
 * What `<ask-user-card>` draws: pure functions of its state (`CardView`) and its handlers. No state lives
 * here and nothing is focused or announced; the element (ask-user-card.ts) decides that. Put the output
 * inside `cardStyles` (ask-user-card.styles.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { CardHandlers, CardView } from './card-state.js';
import { MAX_CUSTOM_INPUT, formatRemaining, isChoice, isKnownMode, remainingMs, type AnswerField, type AskUserRequest } from './read-answer.js';
import { receiptNoteKey, receiptTitleKey, selectionLabels, type Receipt } from './receipt.js';
import { formatMessage, type AskUserLocale, type AskUserStrings } from './strings.js';

type Key = keyof AskUserStrings;

/** Shown while the countdown is under this, so the last minute stands out. */
const SOON_MS = 60_000;

/** A sentence of the card with its placeholders filled: the limit of typed text and the request's mode. */
export const cardMessage = (s: AskUserStrings, key: Key, mode = ''): string => formatMessage(s[key], { max: MAX_CUSTOM_INPUT, mode });

/** What the live region says when the card becomes a receipt: the same words the receipt shows. */
export function receiptAnnouncement(r: Receipt, s: AskUserStrings, locale: AskUserLocale, mode?: string): string {
  const note = receiptNoteKey(r);
  const said = [r.late && s.lateAnswerNotUsed, cardMessage(s, receiptTitleKey(r.kind), mode), note && s[note]].filter(Boolean);
  return said.join(locale === 'en' ? '. ' : '。');
}

const formatTime = (iso: string, locale: AskUserLocale): string => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(t);
};

const ids = (...parts: Array<string | false | undefined>) => parts.filter(Boolean).join(' ') || nothing;
const hintOf = (text: string) => (text ? html`<p part="hint" class="hint" id="hint">${text}</p>` : nothing);
const errorOf = (field: AnswerField, text: string) =>
  text ? html`<p part="error" class="error" id="error-${field}">${text}</p>` : nothing;

/** The validation message of `field`, or '' when it is fine. */
const errorText = (v: CardView, field: AnswerField): string =>
  v.invalid?.field === field ? cardMessage(v.s, v.invalid.key, v.req.mode) : '';

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

/** Ctrl/⌘+Enter submits from a textarea, where plain Enter is a new line. */
function submitOnCtrlEnter(e: KeyboardEvent): void {
  if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || (e.target as Element).localName !== 'textarea') return;
  e.preventDefault();
  (e.currentTarget as HTMLFormElement).requestSubmit();
}

/** The whole card: the form or its receipt, and the live region that speaks each change. */
export function cardTemplate(v: CardView, on: CardHandlers): TemplateResult {
  return html`<div part="base" class="base">
    ${v.phase === 'closed' && v.receipt ? receiptTemplate(v.req, v.receipt, v.s, v.locale) : formTemplate(v, on)}
    <div class="sr-only" role="status" aria-live="polite" aria-atomic="true">${v.announcement}</div>
  </div>`;
}

function formTemplate(v: CardView, on: CardHandlers): TemplateResult {
  const { req, s } = v;
  const busy = v.phase === 'submitting';
  const known = isKnownMode(req.mode);
  const choice = known && isChoice(req.mode);
  const error = errorText(v, 'selections');
  return html`<form part="form" novalidate aria-busy=${busy} @submit=${on.submit} @keydown=${submitOnCtrlEnter}>
    <fieldset part="fieldset" tabindex="-1" aria-describedby=${ids(req.description && 'description', error && 'error-selections')}>
      <legend part="title" id="title">${req.title}</legend>
      ${req.description ? html`<p part="description" class="description" id="description">${req.description}</p>` : nothing}
      ${!known
        ? html`<p part="hint" class="hint">${cardMessage(s, 'unsupportedMode', req.mode)}</p>`
        : choice
          ? optionsTemplate(v, on, error)
          : fieldTemplate(v, on)}
      ${choice && req.allowCustom ? otherTemplate(v, on) : nothing}
    </fieldset>
    ${failureTemplate(v, on)} ${expiryTemplate(v)}
    <div part="actions" class="actions">
      ${known
        ? html`<button part="submit-button" class="primary" type="submit" aria-disabled=${busy}>
            ${busy && !v.sent?.cancelled ? s.submitting : req.submitLabel || s.submit}
          </button>`
        : nothing}
      <button part="cancel-button" type="button" aria-disabled=${busy} @click=${on.cancel}>
        ${busy && v.sent?.cancelled ? s.cancelling : s.cancel}
      </button>
    </div>
  </form>`;
}

/** One template for single (radios), multiple (checkboxes) and toggle (checkboxes with the switch role). */
function optionsTemplate({ req, s, draft }: CardView, on: CardHandlers, error: string): TemplateResult {
  const toggle = req.mode === 'toggle';
  // A field's error replaces its hint: the two would say nearly the same thing one above the other.
  const hint = error ? '' : req.mode === 'multiple' ? s.multipleHint : toggle ? s.toggleHint : '';
  const picked = new Set(draft.selected);
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
            @change=${on.choice}
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

function fieldTemplate(v: CardView, on: CardHandlers): TemplateResult {
  const { req, s } = v;
  const { mode } = req;
  const error = errorText(v, 'customInput');
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
          .value=${live(v.draft.text)}
          @input=${on.text}
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
          .value=${live(v.draft.text)}
          @input=${on.text}
          @change=${on.text}
        />`;
  return html`${control} ${hintOf(hint)} ${errorOf('customInput', error)}`;
}

function otherTemplate(v: CardView, on: CardHandlers): TemplateResult {
  const error = errorText(v, 'customInput');
  return html`<div part="custom" class="custom">
    <label part="custom-label" class="field-label" for="other">${v.s.other}</label>
    <textarea
      part="custom-input"
      id="other"
      rows="2"
      maxlength=${MAX_CUSTOM_INPUT}
      placeholder=${v.s.otherPlaceholder}
      aria-describedby=${error ? 'error-customInput' : nothing}
      aria-invalid=${error ? 'true' : nothing}
      .value=${live(v.draft.other)}
      @input=${on.other}
    ></textarea>
    ${errorOf('customInput', error)}
  </div>`;
}

function failureTemplate({ failure: f, s, sent, req }: CardView, on: CardHandlers) {
  if (!f) return nothing;
  return html`<div part="server-error" class="server-error" tabindex="-1">
    <p>${cardMessage(s, f.key, req.mode)}</p>
    ${f.detail ? html`<p class="detail">${s.errorDetail}${f.detail}</p>` : nothing}
    ${f.retry && sent ? html`<button part="retry-button" type="button" @click=${on.retry}>${s.retry}</button>` : nothing}
  </div>`;
}

function expiryTemplate({ req, s, now }: CardView) {
  const left = remainingMs(req.expiresAt, now);
  if (left === null) return nothing;
  return html`<p part="expiry" class="expiry ${left < SOON_MS ? 'soon' : ''}">
    ${formatMessage(s.expiresIn, { time: formatRemaining(left) })}
  </p>`;
}
