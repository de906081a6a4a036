import { LitElement, html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { live } from 'lit/directives/live.js';
import { ContextConsumer } from '@lit/context';
import type { Answer, DoneReason, InteractionResolved, QuestionAnswer } from '../plugin/contract/schema.js';
import { cancelAnswerFor } from '../plugin/contract/tool-result.js';
import { cardStyles } from './ask-user-card.styles.js';
import { cardMessage, cardTemplate, receiptAnnouncement } from './ask-user-card.templates.js';
import type { ApprovalDecision } from '../plugin/contract/approval.js';
import type { ApprovalForm, LitParts } from './approval-card.js';
import type { CardHandlers, ErrorOutcome, Phase } from './card-state.js';
import type { FocusTarget } from './focus-controller.js';
import { askUserContext } from './context.js';
import { CountdownController } from './countdown-controller.js';
import { AskUserExpiredEvent } from './events.js';
import { FocusController } from './focus-controller.js';
import { DraftController } from './draft-controller.js';
import { isAnswerable, normalizedOnce, questionsOf, type AskUserRequest, type BoundValues } from './read-answer.js';
import {
  RUN_NOTES,
  normalizeReceipt,
  receiptForAnswer,
  receiptForResolved,
  receiptIfOver,
  type AskUserReceipt,
  type Receipt,
  type SubmitFailure,
} from './receipt.js';
import { DEFAULT_LOCALE, resolveLocale, resolveStrings, type AskUserApprovalStrings, type AskUserStrings } from './strings.js';
import { SubmissionController } from './submission-controller.js';

export type { AskUserRequest } from './read-answer.js';

/**
 * The approval card's chunk (§12), loaded the first time an approval card appears, as the Markdown
 * renderer is for rich text: a card that asks a question never downloads it. It gets lit from here, so
 * the standalone bundle's entry exports nothing more for it.
 */
let approvalChunk: typeof import('./approval-card.js') | undefined;
let approvalLoading: Promise<unknown> | undefined;
let approvalFailed = false;
const LIT_PARTS: LitParts = { html, nothing, live };
export type { AskUserReceipt } from './receipt.js';
export type { DoneReason } from '../plugin/contract/schema.js';

/**
 * An answer leaves by the first that applies: `ask-user-submit` (prevented → the host submits and calls
 * `markSubmitted()` / `showError()`), `onSubmit`, the provider or `endpoint` (then `ask-user-continued`);
 * with none the card says it cannot send (`ask-user-error`, code `no_submitter`). Nothing is sent for an
 * answer the server's rules refuse, nor for `resumable: false`.
 *
 * @summary The form an `ask_user` tool call asks for: renders the question (or §9.2 questions) with native controls,
 * checks the answer with the server's rules, submits it, and turns into a read-only receipt.
 *
 * @slot - Nothing: all content comes from `request`. (Model text is rendered as text; descriptions and previews
 *   as the sanitized Markdown subset of docs/protocol.md §9.3, never as HTML.)
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
 * @csspart fieldset - The `<fieldset>` holding the question and its controls (one per question on a §9.2 card).
 * @csspart title - The question (`<legend>`).
 * @csspart heading - The card's title above its questions, on a card of several questions (§9.2).
 * @csspart header - A question's short chip label (§9.2 `header`), inside its `title`.
 * @csspart optional - The "选填 / optional" marker after a question that may be left blank.
 * @csspart description - The question's description (Markdown subset, §9.3).
 * @csspart options - The list of options (single, multiple, toggle).
 * @csspart option - One option row.
 * @csspart control - An option's radio, checkbox or switch.
 * @csspart option-label - An option's label.
 * @csspart option-description - An option's description (Markdown subset, §9.3).
 * @csspart preview - The preview of the focused or chosen option (§9.3), beside the options or below them.
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
 * @csspart open-link - A link card's link (§10 URL mode): opening it is the answer.
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
export class AskUserCard extends LitElement {
  static override styles = cardStyles;

  // Declared here rather than with decorators: the same reactive properties, without a decorator runtime
  // in the bundles. `_` members are internal: the built bundles rename them (vite.config.ts).
  static override properties: PropertyDeclarations = {
    request: { attribute: false },
    receipt: { attribute: false },
    onSubmit: { attribute: false },
    locale: {},
    strings: { attribute: false },
    endpoint: {},
    sessionId: { attribute: 'session-id' },
    fetch: { attribute: false },
    noAutofocus: { type: Boolean, attribute: 'no-autofocus' },
    _lang: { attribute: 'lang' },
    _phase: { state: true },
    _receipt: { state: true },
    _failure: { state: true },
    _announcement: { state: true },
    _previewed: { state: true },
  };

  /**
   * The `user_input_required` data or a pending interaction. Anything lacking string `id`, `toolCallId`, `title`,
   * `mode` renders nothing; malformed optional fields are dropped (see `normalizeRequest` in read-answer.ts).
   * `mode: "form"` with `questions` is a card of several questions (docs/protocol.md §9.2), answered as one.
   */
  declare request?: AskUserRequest | null;

  /**
   * A question already closed, shown read-only: set `request` (the question as it was asked) and `receipt`,
   * and the card draws the receipt instead of the form: no countdown, no events, no announcement in the
   * live region, no focus moved. While it is set, `markSubmitted()`, `markResolved()`, `showError()` and
   * `markRunEnded()` are ignored (set a new `receipt` instead); clearing it opens `request` as a new
   * question. A `kind` other than answered, cancelled, expired, superseded renders nothing.
   */
  declare receipt?: AskUserReceipt | null;

  /**
   * Called with the validated answer. A returned promise keeps the card in "submitting"; it resolving
   * shows the receipt, rejecting (or resolving to `{ ok: false, status, error }` or a non-ok `Response`)
   * shows the error. Used instead of a provider's submission.
   */
  declare onSubmit?: (
    selections: string[],
    customInput: string,
    cancelled: boolean,
    answers?: QuestionAnswer[],
    decisions?: ApprovalDecision[],
  ) => void | Promise<unknown>;

  /** `zh-CN` (default) or `en`; also read from the `lang` attribute, then from a provider. */
  declare locale?: string;

  /** Overrides for any subset of the built-in strings. */
  declare strings?: Partial<AskUserStrings & AskUserApprovalStrings>;

  /** Base URL of the routes: with it (or a provider) the card submits by itself. Wins over the provider's. */
  declare endpoint?: string;

  /** Session for a request that carries no `sessionId`. Wins over the provider's. */
  declare sessionId?: string;

  /** `fetch` for the card's own submissions. Wins over the provider's. */
  declare fetch?: typeof fetch;

  /** Do not move focus to the card when it appears (focus still moves to the receipt after a submit). */
  noAutofocus = false;

  declare private _lang?: string;
  private _phase: Phase = 'pending';
  declare private _receipt?: Receipt;
  declare private _failure?: ErrorOutcome;
  private _announcement = '';
  private _previewed: Array<string | undefined> = [];
  private _s: AskUserStrings = resolveStrings(DEFAULT_LOCALE);
  private _locale = DEFAULT_LOCALE;
  declare private _requestId?: string;
  private _normalize = normalizedOnce();
  /** The open approval card's drafts and templates (§12), from its chunk. */
  declare private _approvalForm?: ApprovalForm;
  /** Where focus was to go when an approval card drew nothing yet, its chunk still loading. */
  declare private _focusAfterLoad?: FocusTarget;

  /** What an enclosing `<ask-user-provider>` gives; updates re-render the card. */
  private _provided = new ContextConsumer(this, { context: askUserContext, subscribe: true });
  private _focus = new FocusController(this);
  private _answer = new DraftController(this, () => this._open);
  private _countdown = new CountdownController(this, {
    deadline: () => (this._phase === 'closed' ? undefined : this._open?.expiresAt),
    expired: () => this._expire(),
  });
  private _submission = new SubmissionController(this, {
    request: () => this._open,
    phase: () => this._phase,
    route: () => ({
      onSubmit: this.onSubmit,
      endpoint: this.endpoint,
      sessionId: this.sessionId,
      fetch: this.fetch,
      provided: this._provided.value,
    }),
    submitting: (answer) => this._submitting(answer),
    close: (receipt) => this._close(receipt, true),
    refused: (outcome) => this._refused(outcome),
  });
  /** Created once, so lit keeps the same listeners from one render to the next. */
  private _on: CardHandlers = {
    submit: (e) => this._submit(e),
    cancel: () => void this._submission.send(cancelAnswerFor(this._req ?? {})),
    // The browser opens the link itself; a link card's answer carries nothing (§10).
    open: () => void (this._phase === 'pending' && this._submission.send({ selections: [], customInput: '', cancelled: false })),
    retry: () => this._submission.retry(),
    choice: this._answer.choice,
    text: this._answer.text,
    other: this._answer.other,
    preview: (e) => this._preview(e),
  };

  /** The request, when it passes the minimal check; otherwise the card renders nothing. */
  private get _req(): AskUserRequest | undefined {
    return this._normalize(this.request);
  }

  /** The request open for an answer: none while the host's `receipt` shows it closed. */
  private get _open(): AskUserRequest | undefined {
    return this.receipt == null ? this._req : undefined;
  }

  // ——— Public methods for a host that submits itself ———

  /**
   * The host's submission was accepted: show the receipt of what the card sent (or, if nothing was sent,
   * of what the controls hold). `at` defaults to now. Ignored once the card shows a receipt, so a late
   * call cannot turn "timed out" or "service restarted" into "continuing".
   */
  markSubmitted(at: string | Date = new Date()): void {
    const req = this._open;
    if (!req || this._phase === 'closed') return;
    const answer = this._submission.sent ?? this._answer.read(req);
    this._close(receiptForAnswer(answer, typeof at === 'string' ? at : at.toISOString()), true);
  }

  /**
   * Closes the card from an `interaction_resolved` event (e.g. another tab answered). Ignored when it
   * names another request.
   */
  markResolved(resolved: Pick<InteractionResolved, 'requestId' | 'status'> & Partial<InteractionResolved>): void {
    const req = this._open;
    if (!req || resolved.requestId !== req.id) return;
    this._close(receiptForResolved(resolved, this._submission.sent), true);
  }

  /**
   * The host's submission failed: pass the client's `{ ok: false, status, error }` (or a thrown error).
   * 409 `already_answered` shows the first answer's receipt, 410 the timeout receipt, 409 `not_resumable`
   * the restart notice; 503 and network errors offer a retry; 422 asks for a change.
   */
  showError(result: SubmitFailure | Error | unknown): void {
    this._submission.hostFailed(result);
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

  protected override willUpdate(changed: PropertyValues<this>): void {
    this._locale = resolveLocale(this.locale || this._lang || this._provided.value?.locale);
    this._s = resolveStrings(this._locale, this.strings);
    if (!changed.has('request') && !changed.has('receipt')) return;
    // A new question, or the host's receipt set or cleared, starts the card afresh.
    const req = this._open;
    if (req?.id !== this._requestId) {
      this._requestId = req?.id;
      this._phase = 'pending';
      this._receipt = this._failure = undefined;
      this._announcement = '';
      this._previewed = [];
      this._countdown.reset();
      this._focus.next = req && !this.noAutofocus ? 'question' : undefined;
    }
    if (!req || this._phase === 'closed') return;
    // A request that is already over shows its receipt directly; no event, the host set it so.
    const over = receiptIfOver(req, Date.now(), this._phase === 'submitting');
    if (!over) return;
    this._close(over, false);
    if (this._focus.next === 'question') this._focus.next = 'receipt';
  }

  // Typed with lit's own names, so the published declarations import nothing but lit.
  protected override render(): TemplateResult | typeof nothing {
    const req = this._req;
    // The host's receipt, when set, is what the card shows; nothing at all for one it cannot read.
    const given = this.receipt == null ? undefined : normalizeReceipt(this.receipt);
    if (!req || (this.receipt != null && !given)) return nothing;
    const approval = this._approval(req);
    // An approval card draws once its chunk is in; if it cannot load, the card offers cancel as for an unknown mode.
    if (req.mode === 'approval' && !approval && !approvalFailed) {
      this._focusAfterLoad ??= this._focus.next;
      return nothing;
    }
    const { _phase: phase, _receipt: receipt, _failure: failure, _announcement: announcement, _s: s, _locale: locale } = this;
    const { drafts, invalid } = this._answer;
    const { _previewed: previewed } = this;
    return cardTemplate(
      {
        req,
        phase: given ? 'closed' : phase,
        drafts,
        previewed,
        invalid,
        receipt: given ?? receipt,
        failure,
        announcement,
        s,
        locale,
        sent: this._submission.sent,
        now: this._countdown.now,
        approval,
      },
      this._on,
    );
  }

  // ——— State changes ———

  private _submit(e: Event): void {
    e.preventDefault();
    const req = this._req;
    if (req?.mode === 'approval') return this._submitApproval();
    if (!req || this._phase !== 'pending' || !isAnswerable(req)) return;
    const checked = this._answer.check(req);
    if (checked.answer) return void this._submission.send(checked.answer);
    this._announce(this._message(checked.invalid.key, checked.invalid.values));
    this._focus.next = 'invalid';
  }

  /** An approval card's answer: one decision per call, checked as the server checks it (§12). */
  private _submitApproval(): void {
    const form = this._approvalForm;
    if (!form || form.id !== this._req?.id || this._phase !== 'pending') return;
    const checked = form.check();
    if (checked.decisions)
      return void this._submission.send({ selections: [], customInput: '', cancelled: false, decisions: checked.decisions });
    this._announce(checked.message);
    this._focus.next = 'invalid';
  }

  /** The approval card's form for `req`, made once per request; undefined for another mode or while its chunk loads. */
  private _approval(req: AskUserRequest): ApprovalForm | undefined {
    if (req.mode !== 'approval' || approvalFailed) return undefined;
    if (!approvalChunk) {
      approvalLoading ??= import('./approval-card.js').then(
        (m) => (approvalChunk = m),
        () => void (approvalFailed = true),
      );
      void approvalLoading.then(() => {
        this._focus.next ??= this._focusAfterLoad;
        this._focusAfterLoad = undefined;
        this.requestUpdate();
      });
      return undefined;
    }
    if (this._approvalForm?.id !== req.id) {
      this._approvalForm = new approvalChunk.ApprovalForm(LIT_PARTS, req.id, req.approvals, () => this.requestUpdate());
    }
    this._approvalForm.words(this._locale, this.strings);
    return this._approvalForm;
  }

  private _submitting(answer: Answer): void {
    this._failure = undefined;
    this._phase = 'submitting';
    this._announce(answer.cancelled ? this._s.cancelling : this._s.submitting);
  }

  private _refused(outcome: ErrorOutcome): void {
    this._phase = 'pending';
    this._failure = outcome;
    this._announce(this._message(outcome.key));
    this._focus.next = 'server-error';
    // A 422 naming a decision's field (`decisions[1].arguments.branch`, §12) marks it on its call.
    if (outcome.path && this._approvalForm?.refuse(outcome.path)) return void (this._focus.next = 'invalid');
    // A 422 that names a field (`answers[1].customInput` on a §9.2 card) marks that question too, and focus goes there to fix it.
    const q = outcome.question ?? 0;
    if (!outcome.field || !this._req || !questionsOf(this._req)[q]) return;
    this._answer.refuse(q, { field: outcome.field, key: 'fieldRefused' });
    this._focus.next = 'invalid';
  }

  /** The option that took focus or changed shows its preview (§9.3), and keeps it while focus is in the preview. */
  private _preview(e: Event): void {
    const input = e.target as HTMLInputElement;
    const q = Number(input.closest<HTMLElement>('fieldset')?.dataset.q);
    if (input.localName !== 'input' || Number.isNaN(q) || this._previewed[q] === input.value) return;
    const next = [...this._previewed];
    next[q] = input.value;
    this._previewed = next;
    // Another option's preview starts at its top, not where the last one was scrolled to.
    const box = input.closest('.choices')?.querySelector('.preview');
    if (box) box.scrollTop = box.scrollLeft = 0;
  }

  /** The countdown reached the deadline. While a submission is in flight the server decides; its answer (or 410) closes the card. */
  private _expire(): void {
    const req = this._open;
    if (!req || this._phase !== 'pending') return;
    this._close({ kind: 'expired', at: req.expiresAt }, this.matches(':focus-within'));
    this.dispatchEvent(new AskUserExpiredEvent({ requestId: req.id, toolCallId: req.toolCallId }));
  }

  /** Shows the read-only receipt and says so in the live region. */
  private _close(receipt: Receipt, focus: boolean): void {
    this._phase = 'closed';
    this._receipt = receipt;
    this._answer.invalid = [];
    this._failure = undefined;
    this._announce(receiptAnnouncement(receipt, this._s, this._locale, this._req?.mode));
    if (focus) this._focus.next = 'receipt';
  }

  /** A repeated message would not be spoken again: a trailing no-break space makes the text differ. */
  private _announce(text: string): void {
    this._announcement = text === this._announcement ? `${text}\u00a0` : text;
  }

  private _message(key: keyof AskUserStrings, values?: BoundValues): string {
    return cardMessage(this._s, key, this._req?.mode, values);
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
