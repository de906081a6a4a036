/**
 * What `<ask-user-card>` draws: pure functions of its state (`CardView`) and its handlers. No state lives
 * here and nothing is focused or announced; the element (ask-user-card.ts) decides that. Put the output
 * inside `cardStyles` (ask-user-card.styles.ts).
 */
import { html, nothing, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import type { AskUserOption } from '../plugin/contract/schema.js';
import type { ApprovalParts, CardHandlers, CardView, InvalidAnswer } from './card-state.js';
import {
  MAX_CUSTOM_INPUT,
  boundValues,
  formatRemaining,
  isChoice,
  isAnswerable,
  isKnownMode,
  linkHost,
  remainingMs,
  type AnswerDraft,
  type AnswerField,
  type AskUserRequest,
  type BoundValues,
  type Question,
} from './read-answer.js';
import { receiptNoteKey, receiptTitleKey, selectionLabels, type Receipt } from './receipt.js';
import { richText } from './rich-text.js';
import { formatMessage, type AskUserLocale, type AskUserStrings } from './strings.js';

type Key = keyof AskUserStrings;

/** Shown while the countdown is under this, so the last minute stands out. */
const SOON_MS = 60_000;

/** A sentence of the card with its placeholders filled: the limit of typed text and the request's mode. */
export const cardMessage = (s: AskUserStrings, key: Key, mode = '', values?: BoundValues): string =>
  formatMessage(s[key], { max: MAX_CUSTOM_INPUT, mode, ...values });

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

/**
 * One question as its templates draw it. `p` prefixes its element ids: '' on a card of one question, `q1-`
 * for the second of a §9.2 card, so the ids stay unique in the card's shadow root.
 */
interface QuestionView {
  q: Question;
  p: string;
  draft: AnswerDraft;
  /** The option last focused or changed, whose §9.3 preview shows. */
  previewed?: string;
  invalid?: InvalidAnswer;
  s: AskUserStrings;
  locale: AskUserLocale;
}

const ids = (...parts: Array<string | false | undefined>) => parts.filter(Boolean).join(' ') || nothing;
const hintOf = (text: string, id: string) => (text ? html`<p part="hint" class="hint" id=${id}>${text}</p>` : nothing);
const errorOf = ({ p }: QuestionView, field: AnswerField, text: string) =>
  text ? html`<p part="error" class="error" id="${p}error-${field}">${text}</p>` : nothing;

/** The validation message of `field`, or '' when it is fine. */
const errorText = ({ invalid, s, q }: QuestionView, field: AnswerField): string =>
  invalid?.field === field ? cardMessage(s, invalid.key, q.mode, invalid.values) : '';

/**
 * The §9.1 bounds in words ("范围 1 至 5", "At least 2 characters", "Choose 1 to 3"); '' without bounds. A lone
 * bound reads as the message that crossing it would show.
 */
function boundsHint({ q: req, s }: QuestionView, kind: 'selections' | 'length' | 'value'): string {
  const date = req.mode === 'date';
  const [both, lo, hi]: Key[] =
    kind === 'selections'
      ? ['selectionsRange', 'tooFewSelections', 'tooManySelections']
      : kind === 'length'
        ? ['lengthRange', 'tooShort', 'overMaxLength']
        : ['rangeHint', date ? 'dateMin' : 'belowMin', date ? 'dateMax' : 'aboveMax'];
  const values = boundValues(kind, req);
  const hasMin = (kind === 'value' ? req.min : values.min) !== undefined;
  const key = hasMin ? (values.max !== undefined ? both : lo) : values.max !== undefined ? hi : undefined;
  const bound = key ? formatMessage(s[key], values) : '';
  // stepHint starts with its own separator ("，步长 0.5", ". In steps of 0.5"), dropped when it comes first.
  const step = kind === 'value' && req.step ? formatMessage(s.stepHint, values) : '';
  return bound ? bound + step : step.replace(/^[\s,.;，。；]+/, '');
}

/**
 * A hint of several sentences, each ended as the locale ends one ("…or -3.5. From 1 to 9." /
 * "…或 -3.5。范围 1 至 9。"); a hint of one sentence stays as written, as every other hint of the card.
 */
function sentences(locale: AskUserLocale, ...parts: string[]): string {
  const said = parts.filter(Boolean);
  if (said.length < 2) return said.join('');
  const [stop, space] = locale === 'en' ? ['.', ' '] : ['。', ''];
  return said.map((part) => (/[.!?。！？]$/.test(part) ? part : part + stop)).join(space);
}

/**
 * The read-only receipt. One template for a card that closed while open and for a question a host sets as
 * already closed (the card's `receipt`, e.g. a chat's history after a reload), so both say and look the same.
 */
export function receiptTemplate(
  req: Pick<AskUserRequest, 'title' | 'mode' | 'options' | 'questions' | 'url'>,
  r: Receipt,
  s: AskUserStrings,
  locale: AskUserLocale,
  approval?: ApprovalParts,
): TemplateResult {
  const note = receiptNoteKey(r);
  const choice = isChoice(req.mode);
  const typed = r.customInput ?? '';
  const labels = r.selections ? selectionLabels(req, r.selections) : [];
  const showAnswer =
    (r.kind === 'answered' || r.kind === 'elsewhere') &&
    (r.selections !== undefined || r.customInput !== undefined || !!r.answers || !!r.decisions);
  return html`<div part="receipt" class="receipt" data-kind=${r.kind} tabindex="-1" role="group" aria-labelledby="receipt-status">
    <p part="receipt-question" class="receipt-question">${req.title}</p>
    ${r.late ? html`<p part="receipt-note" class="receipt-note late">${s.lateAnswerNotUsed}</p>` : nothing}
    <p part="receipt-status" class="receipt-status" id="receipt-status">${formatMessage(s[receiptTitleKey(r.kind)], { mode: req.mode })}</p>
    ${
      !showAnswer
        ? nothing
        : r.decisions
          ? // An approval card's decisions (§12), listed by its chunk once loaded.
            approval?.receipt(r.decisions)
          : req.questions
            ? html`<dl part="receipt-answer" class="receipt-answer">
                ${req.questions.map((q, i) => {
                  const a = r.answers?.find((x) => x.id === q.id) ?? r.answers?.[i];
                  const said = a ? [...selectionLabels(q, a.selections), a.customInput].filter(Boolean).join(s.listSeparator) : '';
                  // Another tab's answer reports only the length of its text.
                  return html`<dt>${q.header || q.title}</dt>
                    <dd>${said || (a?.customInputLength ? s.receiptTextNotShown : s.receiptSkipped)}</dd>`;
                })}
              </dl>`
            : html`<dl part="receipt-answer" class="receipt-answer">
                ${
                  req.mode === 'url'
                    ? html`<dt>${s.openLink}</dt>
                        <dd>${linkHost(req)}</dd>`
                    : choice
                      ? html`<dt>${s.receiptSelections}</dt>
                          <dd>${labels.length ? labels.join(s.listSeparator) : s.receiptNothing}</dd>`
                      : nothing
                }
                ${
                  typed || !(choice || req.mode === 'url')
                    ? html`<dt>${s.receiptCustom}</dt>
                        <dd>${typed || s.receiptNothing}</dd>`
                    : nothing
                }
              </dl>`
    }
    ${
      r.at
        ? html`<p part="receipt-time" class="receipt-time">
            <time datetime=${r.at}>${formatMessage(s.receiptAt, { time: formatTime(r.at, locale) })}</time>
          </p>`
        : nothing
    }
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
    ${v.phase === 'closed' && v.receipt ? receiptTemplate(v.req, v.receipt, v.s, v.locale, v.approval) : formTemplate(v, on)}
    <div class="sr-only" role="status" aria-live="polite" aria-atomic="true">${v.announcement}</div>
  </div>`;
}

/**
 * The open card. A card of several questions (§9.2) is one form: the card's title as its heading, its
 * description as the introduction, then each question in a fieldset of its own, one submit and one cancel.
 */
function formTemplate(v: CardView, on: CardHandlers): TemplateResult {
  const { req, s } = v;
  const busy = v.phase === 'submitting';
  const qs = req.questions;
  const approval = v.approval;
  const question = (q: Question, i: number) =>
    questionTemplate(
      { q, p: qs ? `q${i}-` : '', draft: v.drafts[i]!, previewed: v.previewed[i], invalid: v.invalid[i], s, locale: v.locale },
      on,
      i,
    );
  const host = linkHost(req);
  return html`<form
    part="form"
    novalidate
    aria-busy=${busy}
    aria-labelledby=${qs || approval ? 'title' : nothing}
    aria-describedby=${qs && req.description ? 'description' : nothing}
    @submit=${on.submit}
    @keydown=${submitOnCtrlEnter}
  >
    ${
      qs || approval
        ? html`<h2 part="heading" class="heading" id="title" tabindex="-1">${req.title}</h2>
            ${req.description ? html`<div part="description" class="description" id="description">${richText(req.description)}</div>` : nothing}
            ${approval ? approval.form() : qs!.map(question)}`
        : question(req, 0)
    }
    ${failureTemplate(v, on)} ${expiryTemplate(v)}
    <div part="actions" class="actions">
      ${
        host
          ? // Opening the link is the answer: the browser opens it (a new tab, no opener), the card says so.
            html`<a
              part="open-link"
              class="primary button"
              href=${req.url!}
              target="_blank"
              rel="noopener noreferrer"
              aria-describedby="link-host"
              aria-disabled=${busy}
              @click=${on.open}
              @auxclick=${on.open}
              >${s.openLink}</a
            >`
          : approval || isAnswerable(req)
            ? html`<button part="submit-button" class="primary" type="submit" aria-disabled=${busy}>
                ${busy && !v.sent?.cancelled ? s.submitting : req.submitLabel || s.submit}
              </button>`
            : nothing
      }
      <button part="cancel-button" type="button" aria-disabled=${busy} @click=${on.cancel}>
        ${busy && v.sent?.cancelled ? s.cancelling : req.mode === 'url' ? s.decline : s.cancel}
      </button>
    </div>
  </form>`;
}

/** The question, after its §9.2 header chip and before its "optional" marker; spaces keep the three apart when read aloud. */
const legend = ({ q, s }: QuestionView) => [
  q.header ? html`<span part="header" class="header">${q.header}</span> ` : nothing,
  q.title,
  q.required === false ? html` <span part="optional" class="optional">${s.optional}</span>` : nothing,
];

/** One question: its legend (with the §9.2 header chip and "optional" marker), description and control. */
function questionTemplate(v: QuestionView, on: CardHandlers, i: number): TemplateResult {
  const { q, p, s } = v;
  const known = isKnownMode(q.mode);
  const choice = known && isChoice(q.mode);
  const error = errorText(v, 'selections');
  // A link card (§10) says which host its link opens, in plain text; a link it may not open is unsupported.
  const host = q.mode === 'url' && linkHost(q as Pick<AskUserRequest, 'url'>);
  return html`<fieldset
    part="fieldset"
    data-q=${i}
    tabindex="-1"
    aria-describedby=${ids(q.description && `${p}description`, error && `${p}error-selections`)}
  >
    <legend part="title" id="${p}title">${legend(v)}</legend>
    ${q.description ? html`<div part="description" class="description" id="${p}description">${richText(q.description)}</div>` : nothing}
    ${
      host
        ? html`<p part="hint" class="hint" id="link-host">${formatMessage(s.linkHost, { host })}</p>`
        : !known
          ? html`<p part="hint" class="hint">${cardMessage(s, 'unsupportedMode', q.mode)}</p>`
          : choice
            ? optionsTemplate(v, on, error)
            : fieldTemplate(v, on)
    }
    ${choice && q.allowCustom ? otherTemplate(v, on) : nothing}
  </fieldset>`;
}

/** One template for single (radios), multiple (checkboxes) and toggle (checkboxes with the switch role). */
function optionsTemplate(v: QuestionView, on: CardHandlers, error: string): TemplateResult {
  const { q: req, s, draft, p } = v;
  const toggle = req.mode === 'toggle';
  // A field's error replaces its hint: the two would say nearly the same thing one above the other. Selection
  // bounds replace the mode's own hint ("可多选" would no longer be true).
  const hint = error ? '' : boundsHint(v, 'selections') || (req.mode === 'multiple' ? s.multipleHint : toggle ? s.toggleHint : '');
  const picked = new Set(draft.selected);
  const options = req.options ?? [];
  const list = html`<div part="options" class="options" @focusin=${on.preview} @change=${on.preview}>
    ${options.map(
      (o, i) =>
        html`<div part="option" class="option">
          <input
            part="control"
            id="${p}option-${i}"
            type=${req.mode === 'single' ? 'radio' : 'checkbox'}
            role=${toggle ? 'switch' : nothing}
            name="${p}choice"
            .value=${o.id}
            .checked=${live(picked.has(o.id))}
            aria-describedby=${ids(o.description && `${p}option-${i}-description`, hint && `${p}hint`)}
            aria-invalid=${error ? 'true' : nothing}
            @change=${on.choice}
          />
          <label part="option-label" for="${p}option-${i}"
            >${o.label}${o.recommended ? html`<span part="recommended-badge" class="badge">${s.recommended}</span>` : nothing}</label
          >
          ${o.description ? optionDescription(`${p}option-${i}-description`, o.description) : nothing}
        </div>`,
    )}
  </div>`;
  // §9.3: with previews, the list and the preview share a row on a wide card and stack on a narrow one.
  const shown = options.find((o) => o.id === (v.previewed ?? draft.selected[0]));
  return html`${options.some((o) => o.preview) ? html`<div class="choices">${list}${previewTemplate(v, shown)}</div>` : list}
  ${hintOf(hint, `${p}hint`)} ${errorOf(v, 'selections', error)}`;
}

/** On one line: the box keeps the model's line breaks, so template whitespace would show. */
const optionDescription = (id: string, text: string) =>
  html`<div part="option-description" class="option-description" id=${id}>${richText(text)}</div>`;

/**
 * The preview of the option last focused or changed (else the chosen one). Its title is a live region, so
 * moving between options says which preview shows; the box takes focus, to be scrolled by keyboard. On a
 * §9.2 card the question joins its name, so two previews' regions are told apart.
 */
function previewTemplate({ p, s }: QuestionView, o: AskUserOption | undefined): TemplateResult {
  return html`<section part="preview" class="preview" tabindex="0" aria-labelledby=${ids(`${p}preview-title`, p && `${p}title`)}>
    <p class="preview-title" id="${p}preview-title" aria-live="polite">
      ${o ? formatMessage(s.previewOf, { label: o.label }) : s.previewTitle}
    </p>
    ${
      o?.preview
        ? html`<div class="preview-body">${richText(o.preview)}</div>`
        : html`<p class="hint">${o ? s.previewNone : s.previewPrompt}</p>`
    }
  </section>`;
}

function fieldTemplate(v: QuestionView, on: CardHandlers): TemplateResult {
  const { q: req, s, p } = v;
  const { mode } = req;
  const directory = mode === 'directory';
  const error = errorText(v, 'customInput');
  const modeHint = mode === 'number' ? s.numberHint : mode === 'date' ? s.dateHint : mode === 'directory' ? s.directoryHint : '';
  const hint = error ? '' : sentences(v.locale, modeHint, boundsHint(v, mode === 'number' || mode === 'date' ? 'value' : 'length'));
  // A date field never shows a placeholder: the question's is a visible hint instead, kept beside an error.
  const dateHint = mode === 'date' ? (req.placeholder ?? '') : '';
  const placeholder =
    mode === 'date' ? nothing : (req.placeholder ?? (mode === 'text' ? s.textPlaceholder : directory ? s.directoryPlaceholder : nothing));
  const describedBy = ids(
    req.description && `${p}description`,
    dateHint && `${p}placeholder`,
    hint && `${p}hint`,
    error && `${p}error-customInput`,
  );
  const invalid = error ? 'true' : nothing;
  // No minlength or maxlength: the browser counts UTF-16 units, §9.1 code points; typed-text.ts holds the text.
  const control =
    mode === 'text'
      ? html`<textarea
          part="field"
          id="${p}field"
          rows="4"
          placeholder=${placeholder}
          aria-labelledby="${p}title"
          aria-describedby=${describedBy}
          aria-invalid=${invalid}
          .value=${live(v.draft.text)}
          @input=${on.text}
          @compositionend=${on.text}
        ></textarea>`
      : html`<input
          part="field"
          id="${p}field"
          type=${mode === 'number' || mode === 'date' ? mode : 'text'}
          min=${req.min ?? nothing}
          max=${req.max ?? nothing}
          step=${mode === 'number' ? (req.step ?? 'any') : nothing}
          inputmode=${mode === 'number' ? 'decimal' : nothing}
          placeholder=${placeholder}
          spellcheck=${directory ? 'false' : nothing}
          autocomplete="off"
          autocapitalize=${directory ? 'off' : nothing}
          aria-labelledby="${p}title"
          aria-describedby=${describedBy}
          aria-invalid=${invalid}
          .value=${live(v.draft.text)}
          @input=${on.text}
          @change=${on.text}
          @compositionend=${on.text}
        />`;
  return html`${control} ${hintOf(dateHint, `${p}placeholder`)} ${hintOf(hint, `${p}hint`)} ${errorOf(v, 'customInput', error)}`;
}

function otherTemplate(v: QuestionView, on: CardHandlers): TemplateResult {
  const { q: req, p } = v;
  const error = errorText(v, 'customInput');
  const hint = error ? '' : boundsHint(v, 'length');
  return html`<div part="custom" class="custom">
    <label part="custom-label" class="field-label" for="${p}other">${v.s.other}</label>
    <textarea
      part="custom-input"
      id="${p}other"
      rows="2"
      placeholder=${req.placeholder ?? v.s.otherPlaceholder}
      aria-describedby=${ids(hint && `${p}other-hint`, error && `${p}error-customInput`)}
      aria-invalid=${error ? 'true' : nothing}
      .value=${live(v.draft.other)}
      @input=${on.other}
      @compositionend=${on.other}
    ></textarea>
    ${hintOf(hint, `${p}other-hint`)} ${errorOf(v, 'customInput', error)}
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
