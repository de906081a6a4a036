/**
 * The internal state of `<ask-user-card>`: what the element holds, its controllers change and its templates
 * draw. Types only, below all three, so none of them imports another for a shape.
 */
import type { Answer } from '../plugin/contract/schema.js';
import type { AnswerDraft, AnswerField, AskUserRequest, BoundValues } from './read-answer.js';
import type { FailureOutcome, Receipt } from './receipt.js';
import type { AskUserLocale, AskUserStrings } from './strings.js';

/** Open for an answer, waiting for a submission's outcome, or showing a read-only receipt. */
export type Phase = 'pending' | 'submitting' | 'closed';

/** A refused submission the form stays open for: its message, and whether retrying may help. */
export type ErrorOutcome = Extract<FailureOutcome, { kind: 'error' }>;

/** An answer the server's rules refuse: which field, and which sentence says why. */
export interface InvalidAnswer {
  field: AnswerField;
  key: keyof AskUserStrings;
  /** The crossed bound that fills the sentence (§9.1). */
  values?: BoundValues;
}

/** The approval card's chunk (§12), once loaded: its calls, its receipt list. See approval-card.ts. */
export interface ApprovalParts {
  form(): unknown;
  receipt(decisions: readonly object[]): unknown;
}

/** Everything a render reads. The templates are pure functions of this and the handlers. */
export interface CardView {
  req: AskUserRequest;
  phase: Phase;
  /** One per question, by index. */
  drafts: readonly AnswerDraft[];
  receipt?: Receipt;
  /** By question index: the option whose §9.3 preview shows, once one was focused or changed. */
  previewed: ReadonlyArray<string | undefined>;
  /** By question index: what the rules refuse. */
  invalid: ReadonlyArray<InvalidAnswer | undefined>;
  failure?: ErrorOutcome;
  /** The answer last handed to a submission: the busy labels and the retry button depend on it. */
  sent?: Answer;
  announcement: string;
  /** An approval card's calls and receipt list (§12), once its chunk is loaded. */
  approval?: ApprovalParts;
  /** The countdown's clock, in ms since the epoch. */
  now: number;
  s: AskUserStrings;
  locale: AskUserLocale;
}

/** What the form's controls and buttons call; the element owns them, the templates only bind them. */
export interface CardHandlers {
  submit(e: Event): void;
  cancel(): void;
  /** The link of a link card was opened (§10): that is its answer. */
  open(): void;
  retry(): void;
  choice(e: Event): void;
  text(e: Event): void;
  other(e: Event): void;
  /** An option took focus or changed: its preview shows. */
  preview(e: Event): void;
}
