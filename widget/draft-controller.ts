/**
 * The answer being written: the controls' draft, kept in step by the input handlers, and the field the
 * server's rules refuse after a submit. A new question starts from its `default` (§9.1), else empty.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Answer } from '../plugin/contract/schema.js';
import type { InvalidAnswer } from './card-state.js';
import {
  EMPTY_DRAFT,
  chooseOption,
  initialDraft,
  invalidOf,
  readAnswer,
  validateAnswer,
  type AnswerDraft,
  type AskUserRequest,
} from './read-answer.js';

export class DraftController implements ReactiveController {
  draft: AnswerDraft = EMPTY_DRAFT;
  /** Set by a refused submit; cleared when the question closes. */
  invalid?: InvalidAnswer;
  declare private _requestId?: string;

  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _request: () => AskUserRequest | undefined,
  ) {
    _host.addController(this);
  }

  /** Before each render: a new question starts from its default, once; nothing is sent until the user submits. */
  hostUpdate(): void {
    const req = this._request();
    if (req?.id === this._requestId) return;
    this._requestId = req?.id;
    this.draft = initialDraft(req);
    this.invalid = undefined;
  }

  // Input handlers, bound once: the draft follows the controls.
  readonly choice = (e: Event): void => {
    const { value, checked } = e.target as HTMLInputElement;
    this._set(chooseOption(this._request()?.mode ?? '', this.draft, value, checked));
  };
  readonly text = (e: Event): void => this._set({ text: (e.target as HTMLInputElement | HTMLTextAreaElement).value });
  readonly other = (e: Event): void => this._set({ other: (e.target as HTMLTextAreaElement).value });

  /** The answer the controls hold, if the server's rules take it; if not, `invalid` (also kept) says why. */
  check(req: AskUserRequest): { answer: Answer; invalid?: undefined } | { invalid: InvalidAnswer } {
    const answer = readAnswer(req, this.draft);
    this.invalid = invalidOf(validateAnswer(req, answer));
    this._host.requestUpdate();
    return this.invalid ? { invalid: this.invalid } : { answer };
  }

  private _set(patch: Partial<AnswerDraft>): void {
    this.draft = { ...this.draft, ...patch };
    const req = this._request();
    // After a refused submit, keep the message honest as the user fixes the answer.
    if (this.invalid && req) this.invalid = invalidOf(validateAnswer(req, readAnswer(req, this.draft)));
    this._host.requestUpdate();
  }
}
