/**
 * The approval card (§12): each call's title, tool and arguments, its Approve / Deny choice with a reason,
 * an edit form and "allow for the session", the decisions it sends and its receipt. Loaded lazily by
 * `<ask-user-card>` when an approval card appears, so a card that asks a question never downloads it (nor
 * the JSON Schema validator it brings). lit comes from the card (`LitParts`): the standalone bundle holds
 * lit inside its entry, and this chunk must not make the entry export more than its public names.
 */
import type { html as litHtml, nothing as litNothing, TemplateResult } from 'lit';
import type { live as litLive } from 'lit/directives/live.js';
import { APPROVAL_LIMITS, checkDecisions, type ApprovalDecision, type ApprovalRequest } from '../plugin/contract/approval.js';
import {
  approvalsOf,
  codePoints,
  fieldValues,
  flatFields,
  folded,
  keyPath,
  readFields,
  readJson,
  refusedAt,
  sameJson,
  type FieldValues,
  type FlatField,
  type RefusedAt,
} from './approval-fields.js';
import { approvalStrings } from './approval-strings.js';
import type { AskUserApprovalStrings, AskUserLocale } from './strings.js';

export interface LitParts {
  html: typeof litHtml;
  nothing: typeof litNothing;
  live: typeof litLive;
}

type S = AskUserApprovalStrings;

/** What the user set on one call so far. Nothing is preselected: `decision` starts unset. */
interface CallDraft {
  decision?: 'approve' | 'deny';
  reason: string;
  always: boolean;
  editing: boolean;
  values: FieldValues;
  json: string;
}

/** What is wrong with one call: which part, where within the arguments, and which sentence says so. */
interface CallError {
  part: RefusedAt['part'];
  path: string;
  key: keyof S;
}

/** Values nested deeper than this show as JSON text: a hostile depth cannot blow the render. */
const MAX_DEPTH = 12;

const fill = (template: string, values: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Extra rules of the approval card, beside the card's own styles (which it reuses for options, fields and errors). */
const STYLE = `.call{border:1px solid var(--_c-border);border-radius:calc(var(--_radius)*.75);padding:.75rem}
.call .decision,.call .edit{border:0;padding:0}.two{grid-template-columns:repeat(auto-fit,minmax(8rem,1fr))}
.args dl{margin:0;display:grid;gap:.25rem}.args dl>div{display:flex;flex-wrap:wrap;column-gap:.5em;min-width:0}
.args dt{font-weight:600;overflow-wrap:anywhere}.args dd{min-width:0;flex:1 1 10em;overflow-wrap:anywhere}
.args dd:has(>dl,>ol){flex-basis:100%;padding-inline-start:.75em;border-inline-start:2px solid var(--_c-border)}
.args ol{margin:0}.fold{margin-inline-start:.5em;font-weight:500;font-size:.875em}
.tool code{overflow-wrap:anywhere}select[part=field]{min-height:44px}`;

/**
 * One approval card's state and templates, made by `<ask-user-card>` once per request. The element keeps
 * the phase, the countdown, the submission and focus; this keeps the drafts and the per-call errors.
 */
export class ApprovalForm {
  readonly calls: readonly ApprovalRequest[];
  private _drafts: CallDraft[];
  private readonly _fields: ReadonlyArray<FlatField[] | undefined>;
  private _errors: Array<CallError | undefined> = [];
  /** Long values the user unfolded, by call and path. */
  private _unfolded = new Set<string>();
  private _s: S = approvalStrings('zh-CN');
  /** Ids of folded values, counted afresh each render. */
  private _n = 0;

  constructor(
    private readonly _lit: LitParts,
    readonly id: string,
    approvals: unknown,
    private readonly _changed: () => void,
  ) {
    this.calls = approvalsOf(approvals);
    this._fields = this.calls.map((c) => (c.editable ? flatFields(c.schema, c.arguments) : undefined));
    this._drafts = this.calls.map((c, i) => ({
      reason: '',
      always: false,
      editing: false,
      values: this._fields[i] ? fieldValues(this._fields[i], c.arguments) : {},
      json: JSON.stringify(c.arguments, null, 2),
    }));
  }

  /** The words of the card, in the locale with the host's overrides. Called before each render. */
  words(locale: AskUserLocale, overrides?: Partial<Record<string, unknown>> | null): void {
    this._s = approvalStrings(locale, overrides);
  }

  // ——— The answer ———

  /**
   * The decisions the controls hold, checked as the server checks them; or the first problem in words,
   * with every call's problem marked where it is.
   */
  check(): { decisions: ApprovalDecision[]; message?: undefined } | { message: string; decisions?: undefined } {
    const read = this.calls.map((_, i) => this._read(i));
    this._errors = read.map((r) => r.error);
    const first = this._errors.findIndex(Boolean);
    if (first < 0) {
      const decisions = read.map((r) => r.decision!);
      const rules = checkDecisions(this.calls, decisions);
      if (rules.ok) return (this._changed(), { decisions });
      this.refuse(rules.field);
    }
    this._changed();
    const at = this._errors.findIndex(Boolean);
    return { message: `${this.calls[at]?.title ?? ''}: ${this._s[this._errors[at]?.key ?? 'approvalRefused']}` };
  }

  /** The server's 422 named `field` (`decisions[1].arguments.branch`): mark it on its call. False when it names none. */
  refuse(field: string): boolean {
    const at = refusedAt(field);
    if (!at || !this.calls[at.call]) return false;
    this._errors = Object.assign([...this._errors], { [at.call]: { part: at.part, path: at.path, key: 'approvalRefused' } });
    this._changed();
    return true;
  }

  /** One call's decision, or why it cannot be sent yet. */
  private _read(i: number): { decision?: ApprovalDecision; error?: CallError } {
    const c = this.calls[i]!;
    const d = this._drafts[i]!;
    if (!d.decision) return { error: { part: 'decision', path: '', key: 'approvalChoose' } };
    if (d.decision === 'deny') {
      if (codePoints(d.reason) > APPROVAL_LIMITS.reason) return { error: { part: 'reason', path: '', key: 'approvalReasonTooLong' } };
      return { decision: { toolCallId: c.toolCallId, decision: 'deny', ...(d.reason.trim() && { reason: d.reason }) } };
    }
    const decision: ApprovalDecision = { toolCallId: c.toolCallId, decision: 'approve' };
    if (c.editable && d.editing) {
      const fields = this._fields[i];
      const edit = fields ? readFields(fields, d.values, c.arguments, c.schema) : readJson(d.json, c.schema);
      if (edit.problem) return { error: { part: 'arguments', path: edit.problem.path, key: edit.problem.key } };
      // An edit that changes nothing is sent as the plain approval it is.
      if (!sameJson(edit.value, c.arguments)) decision.arguments = edit.value;
    }
    if (c.allowAlways && d.always) decision.always = true;
    return { decision };
  }

  private _set(i: number, patch: Partial<CallDraft>): void {
    this._drafts = Object.assign([...this._drafts], { [i]: { ...this._drafts[i]!, ...patch } });
    // After a refused submit, the message follows the fix as the user makes it.
    if (this._errors[i]) this._errors = Object.assign([...this._errors], { [i]: this._read(i).error });
    this._changed();
  }

  // ——— Templates ———

  /** The open card's calls, one fieldset each. `busy` while a submission is in flight. */
  form(): TemplateResult {
    const { html } = this._lit;
    this._n = 0;
    return html`<style>
        ${STYLE}
      </style>
      ${this.calls.map((c, i) => this._call(c, i))}`;
  }

  /** The receipt's list: each call and what was decided. */
  receipt(decisions: ReadonlyArray<Partial<ApprovalDecision>>): TemplateResult {
    const { html } = this._lit;
    const s = this._s;
    const said = (d: Partial<ApprovalDecision> | undefined): string =>
      d?.decision === 'approve'
        ? d.always
          ? s.approvalApprovedAlways
          : d.arguments
            ? s.approvalApprovedEdited
            : s.approvalApproved
        : typeof d?.reason === 'string' && d.reason.trim()
          ? fill(s.approvalDeniedWithReason, { reason: d.reason })
          : d?.decision === 'deny'
            ? s.approvalDenied
            : '—';
    return html`<dl part="receipt-answer" class="receipt-answer">
      ${this.calls.map((c, i) => {
        const d = decisions.find((x) => x.toolCallId === c.toolCallId) ?? decisions[i];
        return html`<dt>${c.title}</dt>
          <dd data-decision=${d?.decision ?? ''}>${said(d)}</dd>`;
      })}
    </dl>`;
  }

  private _call(c: ApprovalRequest, i: number): TemplateResult {
    const { html, nothing, live } = this._lit;
    const s = this._s;
    const p = `a${i}-`;
    const d = this._drafts[i]!;
    const approve = d.decision === 'approve';
    const editing = approve && c.editable && d.editing;
    const err = this._errors[i];
    // A refusal of a part that is not on screen (say `always` after switching to Deny) shows at the choice.
    const shown = { decision: true, reason: d.decision === 'deny', always: approve && c.allowAlways, arguments: editing };
    const at = err && (shown[err.part] ? err.part : 'decision');
    const errorOf = (part: CallError['part']) =>
      at === part
        ? html`<p part="error" class="error" id="${p}error-${part}">${fill(s[err!.key], { max: APPROVAL_LIMITS.reason })}</p>`
        : nothing;
    const invalid = (part: CallError['part']) => (at === part ? 'true' : nothing);
    const choice = (value: 'approve' | 'deny') =>
      html`<div part="option" class="option">
        <input
          part="control"
          type="radio"
          id="${p}${value}"
          name="${p}decision"
          .value=${value}
          .checked=${live(d.decision === value)}
          aria-invalid=${invalid('decision')}
          @change=${() => this._set(i, { decision: value })}
        />
        <label part="option-label" for="${p}${value}">${s[value]}</label>
      </div>`;
    return html`<fieldset part="fieldset" class="call" data-q=${i} aria-describedby="${p}tool">
      <legend part="title" id="${p}title">${c.title}</legend>
      <p part="hint" class="hint tool" id="${p}tool">${fill(s.approvalTool, { tool: c.tool })}</p>
      ${this._arguments(c, i)}
      <fieldset class="decision" aria-describedby=${at === 'decision' ? `${p}error-decision` : nothing}>
        <legend class="field-label">${s.approvalDecision}</legend>
        <div part="options" class="options two">${choice('approve')} ${choice('deny')}</div>
        ${errorOf('decision')}
      </fieldset>
      ${
        shown.always
          ? html`<div part="option" class="option">
                <input
                  part="control"
                  type="checkbox"
                  id="${p}always"
                  .checked=${live(d.always)}
                  aria-invalid=${invalid('always')}
                  aria-describedby=${at === 'always' ? `${p}error-always` : nothing}
                  @change=${(e: Event) => this._set(i, { always: (e.target as HTMLInputElement).checked })}
                />
                <label part="option-label" for="${p}always">${fill(s.approvalAlways, { tool: c.tool })}</label>
              </div>
              ${errorOf('always')}`
          : nothing
      }
      ${
        approve && c.editable
          ? html`<div part="option" class="option">
                <input
                  part="control"
                  type="checkbox"
                  id="${p}edit"
                  .checked=${live(d.editing)}
                  @change=${(e: Event) => this._set(i, { editing: (e.target as HTMLInputElement).checked })}
                />
                <label part="option-label" for="${p}edit">${s.approvalEdit}</label>
              </div>
              ${editing ? this._edit(c, i, at === 'arguments' ? err!.path : undefined) : nothing}`
          : nothing
      }
      ${
        shown.reason
          ? html`<div>
              <label class="field-label" for="${p}reason">${s.approvalReason}</label>
              <textarea
                part="field"
                id="${p}reason"
                .value=${live(d.reason)}
                aria-invalid=${invalid('reason')}
                aria-describedby="${p}reason-hint${at === 'reason' ? ` ${p}error-reason` : ''}"
                @input=${(e: Event) => this._set(i, { reason: (e.target as HTMLTextAreaElement).value })}
              ></textarea>
              <p part="hint" class="hint" id="${p}reason-hint">${fill(s.approvalReasonHint, { max: APPROVAL_LIMITS.reason })}</p>
              ${errorOf('reason')}
            </div>`
          : nothing
      }
    </fieldset>`;
  }

  /** The call's arguments as a key/value list, values as text. */
  private _arguments(c: ApprovalRequest, i: number): TemplateResult {
    const { html } = this._lit;
    const p = `a${i}-`;
    return html`<div class="args" role="group" aria-labelledby="${p}args">
      <p class="field-label" id="${p}args">${this._s.approvalArguments}</p>
      ${Object.keys(c.arguments).length ? this._value(c.arguments, `${i}`, 0) : html`<p class="hint">${this._s.approvalNoArguments}</p>`}
    </div>`;
  }

  /** One value: an object as a nested list of keys, an array as a numbered list, a long string folded. */
  private _value(v: unknown, path: string, depth: number): unknown {
    const { html } = this._lit;
    if ((Array.isArray(v) || isRecord(v)) && depth > MAX_DEPTH) return this._text(JSON.stringify(v), path);
    if (Array.isArray(v)) {
      return v.length
        ? html`<ol>
            ${v.map((x, k) => html`<li>${this._value(x, `${path}[${k}]`, depth + 1)}</li>`)}
          </ol>`
        : this._s.approvalEmpty;
    }
    if (isRecord(v)) {
      const entries = Object.entries(v);
      return entries.length
        ? html`<dl>
            ${entries.map(
              ([k, x]) =>
                html`<div>
                  <dt>${k}</dt>
                  <dd>${this._value(x, path + keyPath(k), depth + 1)}</dd>
                </div>`,
            )}
          </dl>`
        : this._s.approvalEmpty;
    }
    // A redacted value is whatever string the host put there: shown as it is.
    return typeof v === 'string' ? this._text(v, path) : String(JSON.stringify(v));
  }

  private _text(text: string, path: string): unknown {
    const { html } = this._lit;
    const head = folded(text);
    if (head === undefined) return text;
    const open = this._unfolded.has(path);
    const id = `v${this._n++}`;
    return html`<span id=${id}>${open ? text : head}</span
      ><button type="button" class="fold" aria-expanded=${open} aria-controls=${id} @click=${() => this._fold(path)}>
        ${open ? this._s.approvalShowLess : this._s.approvalShowAll}
      </button>`;
  }

  private _fold(path: string): void {
    if (!this._unfolded.delete(path)) this._unfolded.add(path);
    this._changed();
  }

  /** The edit form: a field per property of a flat schema, else the arguments as JSON text. */
  private _edit(c: ApprovalRequest, i: number, errorPath: string | undefined): TemplateResult {
    const { html, nothing, live } = this._lit;
    const s = this._s;
    const p = `a${i}-`;
    const d = this._drafts[i]!;
    const fields = this._fields[i];
    const err = this._errors[i];
    const message = err ? s[err.key] : '';
    // The schema's error lands on the field it names; one it cannot place shows under the whole form.
    const onField = fields?.find((f) => errorPath !== undefined && keyPath(f.key) === errorPath);
    const whole = errorPath !== undefined && !onField;
    const errorId = (f?: FlatField) => (f ? `${p}error-${fields!.indexOf(f)}` : `${p}error-arguments`);
    if (!fields) {
      return html`<div class="edit">
        <label class="field-label" for="${p}json">${s.approvalJson}</label>
        <textarea
          part="field"
          id="${p}json"
          spellcheck="false"
          .value=${live(d.json)}
          aria-invalid=${whole ? 'true' : nothing}
          aria-describedby=${whole ? errorId() : nothing}
          @input=${(e: Event) => this._set(i, { json: (e.target as HTMLTextAreaElement).value })}
        ></textarea>
        ${whole ? html`<p part="error" class="error" id=${errorId()}>${message}</p>` : nothing}
      </div>`;
    }
    const set = (key: string) => (e: Event) => {
      const el = e.target as HTMLInputElement;
      this._set(i, { values: { ...d.values, [key]: el.type === 'checkbox' ? String(el.checked) : el.value } });
    };
    const field = (f: FlatField, k: number) => {
      const id = `${p}field-${k}`;
      const bad = f === onField;
      const described = [f.description && `${id}-description`, bad && errorId(f)].filter(Boolean).join(' ') || nothing;
      const value = d.values[f.key] ?? '';
      const control =
        f.kind === 'boolean'
          ? html`<div part="option" class="option">
              <input
                part="control"
                type="checkbox"
                id=${id}
                .checked=${live(value === 'true')}
                aria-describedby=${described}
                @change=${set(f.key)}
              />
              <label part="option-label" for=${id}>${f.label}</label>
            </div>`
          : html`<label class="field-label" for=${id}>${f.label}</label> ${
                f.kind === 'enum'
                  ? html`<select
                      part="field"
                      id=${id}
                      aria-invalid=${bad ? 'true' : nothing}
                      aria-describedby=${described}
                      @change=${set(f.key)}
                    >
                      ${f.required && value !== '' ? nothing : html`<option value="" ?selected=${value === ''}>—</option>`}
                      ${f.options!.map((o, n) => html`<option value=${n} ?selected=${value === String(n)}>${String(o)}</option>`)}
                    </select>`
                  : html`<input
                      part="field"
                      id=${id}
                      type="text"
                      inputmode=${f.kind === 'integer' ? 'numeric' : f.kind === 'number' ? 'decimal' : nothing}
                      .value=${live(value)}
                      aria-invalid=${bad ? 'true' : nothing}
                      aria-describedby=${described}
                      @input=${set(f.key)}
                    />`
              }`;
      return html`<div>
        ${control} ${f.description ? html`<p part="hint" class="hint" id="${id}-description">${f.description}</p>` : nothing}
        ${bad ? html`<p part="error" class="error" id=${errorId(f)}>${message}</p>` : nothing}
      </div>`;
    };
    return html`<fieldset class="edit" aria-describedby=${whole ? errorId() : nothing}>
      <legend class="field-label">${s.approvalArguments}</legend>
      ${fields.map(field)} ${whole ? html`<p part="error" class="error" id=${errorId()}>${message}</p>` : nothing}
    </fieldset>`;
  }
}
