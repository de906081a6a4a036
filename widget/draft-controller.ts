/**
 * The answer being written: one draft per question, kept in step by the input handlers, and per question
 * the field the rules (or the server's 422) refuse. A new card starts each question from its `default`
 * (§9.1), else empty.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Answer } from '../plugin/contract/schema.js';
import type { InvalidAnswer } from './card-state.js';
import { checkForm } from './answer-checks.js';
import { typedText } from './typed-text.js';
import { chooseOption, initialDraft, questionsOf, readForm, type AnswerDraft, type AskUserRequest, type Question } from './read-answer.js';

/** What the rules make of the answer the controls hold: the answer to send, or the first refused question. */
export type Checked = { answer: Answer; invalid?: undefined } | { invalid: InvalidAnswer; answer?: undefined };

export class DraftController implements ReactiveController {
  /** By question index; a card of one question has one. */
  drafts: AnswerDraft[] = [];
  /** By question index: set by a refused submit; cleared when the card closes. */
  invalid: Array<InvalidAnswer | undefined> = [];
  declare private _requestId?: string;

  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _request: () => AskUserRequest | undefined,
  ) {
    _host.addController(this);
  }

  /** Before each render: a new card starts from its defaults, once; nothing is sent until the user submits. */
  hostUpdate(): void {
    const req = this._request();
    if (req?.id === this._requestId) return;
    this._requestId = req?.id;
    this.drafts = req ? questionsOf(req).map(initialDraft) : [];
    this.invalid = [];
  }

  // Input handlers, bound once: the draft of the control's question follows the control.
  readonly choice = (e: Event): void => {
    const { value, checked } = e.target as HTMLInputElement;
    this._set(e, (q, d) => chooseOption(q.mode, d, value, checked));
  };
  readonly text = (e: Event): void => this._set(e, (q, d) => ({ ...d, text: typedText(e, q.maxLength) }));
  readonly other = (e: Event): void => this._set(e, (q, d) => ({ ...d, other: typedText(e, q.maxLength) }));

  /** The answer the controls hold. */
  read(req: AskUserRequest): Answer {
    return readForm(req, this.drafts);
  }

  /** The answer the controls hold, if the rules take it; if not, the first refused question (all are kept in `invalid`). */
  check(req: AskUserRequest): Checked {
    const answer = this.read(req);
    this.invalid = checkForm(req, answer);
    this._host.requestUpdate();
    const first = this.invalid.find(Boolean);
    return first ? { invalid: first } : { answer };
  }

  /** The server refused question `q`'s answer (422 naming its field). */
  refuse(q: number, invalid: InvalidAnswer | undefined): void {
    this.invalid = Object.assign([...this.invalid], { [q]: invalid });
    this._host.requestUpdate();
  }

  private _set(e: Event, next: (q: Question, d: AnswerDraft) => AnswerDraft): void {
    const req = this._request();
    if (!req) return;
    // Each question's fieldset says which question its controls belong to.
    const i = Number((e.target as Element).closest<HTMLElement>('[data-q]')?.dataset.q ?? 0);
    const q = questionsOf(req)[i]!;
    const draft = next(q, this.drafts[i]!);
    this.drafts = Object.assign([...this.drafts], { [i]: draft });
    // After a refused submit, keep the message honest as the user fixes the answer.
    if (this.invalid[i]) this.refuse(i, checkForm(req, this.read(req))[i]);
    this._host.requestUpdate();
  }
}
