/**
 * Pure helpers between the card's controls and the wire answer (docs/protocol.md §4): reading a draft into
 * `{ selections, customInput, cancelled }`, the §9.1 bounds, and the countdown arithmetic. The checks with
 * the server's own rules are in answer-checks.ts. No DOM here, so each helper is tested directly.
 */
import { MODES, isChoiceMode, isWebUrl, type Mode } from '../plugin/contract/limits.js';
import { questionsOf } from './answer-fields.js';
import type { Answer, AskUserOption, FormQuestion } from '../plugin/contract/schema.js';
import { isPendingStatus, isRecord, isUserInputRequired } from './chat-events.js';
import type { AskUserStrings } from './strings.js';

import type { AskUserRequest, Question } from './card-request.js';

export type { AskUserRequest, Question } from './card-request.js';

/** The controls' current state: checked option ids, the main text field, the "Other" box. */
export interface AnswerDraft {
  selected: readonly string[];
  text: string;
  other: string;
}

export const EMPTY_DRAFT: AnswerDraft = Object.freeze({ selected: Object.freeze([]) as readonly string[], text: '', other: '' });

export const isChoice = (mode: string): boolean => isChoiceMode(mode);
export const isKnownMode = (mode: string): mode is Mode => (MODES as readonly string[]).includes(mode);

/** The minimal check of docs/protocol.md §3 (id, toolCallId, title, mode are strings); anything else is ignored. */
export const isAskUserRequest = (value: unknown): value is AskUserRequest => isUserInputRequired(value);

const isText = (value: unknown): value is string => typeof value === 'string';
const isNonBlank = (value: unknown): value is string => isText(value) && value.trim() !== '';
const isFinite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
/** `min`/`max`: a finite number (number mode) or a `YYYY-MM-DD` string (date mode). */
const isBound = (value: unknown): boolean => isFinite(value) || isText(value);
const isCount = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
/** The type each §9.1 field must have to be kept. */
const BOUNDS: Record<string, (value: unknown) => boolean> = {
  placeholder: isText,
  default: (v) => isText(v) || (Array.isArray(v) && v.every(isText)),
  min: isBound,
  max: isBound,
  step: (v) => isFinite(v) && v > 0,
  minLength: isCount,
  maxLength: isCount,
  minSelections: isCount,
  maxSelections: isCount,
};

/**
 * The request as the card may trust it. It comes off the network (SSE, `GET pending`) and only the minimal
 * check has run, so every optional field is read defensively: a field of the wrong type counts as absent,
 * a non-array `options` as none, an option without a non-blank string `id` and `label` is dropped (the
 * server's schema never sends one), and a repeated id keeps only its first option, so each shown control
 * maps to exactly one id and the answer can only carry ids that are on screen. An `expiresAt` that does not
 * parse as a date is dropped rather than shown as a receipt time. An unknown `mode` is kept: the card
 * still shows the question, says it cannot be answered here, and offers cancel, which lets the waiting run
 * go on instead of hanging until it expires. Only known keys are copied, so nothing else reaches rendering.
 * The §9.2 `questions` of a `form` card are read the same way, each question on its own.
 */
export function normalizeRequest(raw: AskUserRequest): AskUserRequest {
  const r = raw as unknown as Record<string, unknown>;
  const ids = new Set<string>();
  // §9.2: a question without the minimal fields, or repeating an id, is dropped like a bad option.
  const questions = (raw.mode === 'form' && Array.isArray(r.questions) ? (r.questions as unknown[]) : [])
    .filter((q): q is Record<string, unknown> => isRecord(q) && isNonBlank(q.id) && isText(q.title) && isText(q.mode) && !ids.has(q.id))
    .map(
      (q) => (
        ids.add(q.id as string),
        { id: q.id, ...(isText(q.header) && { header: q.header }), required: q.required !== false, ...question(q) }
      ),
    );
  return {
    id: raw.id,
    toolCallId: raw.toolCallId,
    ...question(r),
    ...(ids.size && { questions: questions as FormQuestion[] }),
    ...(isText(r.submitLabel) && { submitLabel: r.submitLabel }),
    ...(raw.mode === 'url' && isText(r.url) && { url: r.url }),
    // An approval card's calls (§12) are read by its lazy chunk (approval-fields.ts), not here.
    ...(raw.mode === 'approval' && Array.isArray(r.approvals) && { approvals: r.approvals }),
    ...(isText(r.sessionId) && { sessionId: r.sessionId }),
    ...(isText(r.expiresAt) && !Number.isNaN(Date.parse(r.expiresAt)) && { expiresAt: r.expiresAt }),
    ...(typeof r.resumable === 'boolean' && { resumable: r.resumable }),
    ...(isPendingStatus(r.status) && { status: r.status }),
  } as AskUserRequest;
}

/** The fields of one question (the request itself, or one of its §9.2 `questions`), read defensively. */
function question(r: Record<string, unknown>) {
  const seen = new Set<string>();
  const options: AskUserOption[] = [];
  for (const entry of Array.isArray(r.options) ? (r.options as unknown[]) : []) {
    if (!isRecord(entry) || !isNonBlank(entry.id) || !isNonBlank(entry.label) || seen.has(entry.id)) continue;
    seen.add(entry.id);
    options.push({
      id: entry.id,
      label: entry.label,
      ...(isText(entry.description) && { description: entry.description }),
      ...(isText(entry.preview) && { preview: entry.preview }),
      ...(typeof entry.recommended === 'boolean' && { recommended: entry.recommended }),
    });
  }
  return {
    title: r.title as string,
    mode: r.mode as Mode,
    ...(isText(r.description) && { description: r.description }),
    ...(Array.isArray(r.options) && { options }),
    ...(typeof r.allowCustom === 'boolean' && { allowCustom: r.allowCustom }),
    // docs/protocol.md §9.1, each dropped when it has the wrong type.
    ...Object.fromEntries(
      Object.entries(BOUNDS)
        .filter(([k, ok]) => ok(r[k]))
        .map(([k]) => [k, r[k]]),
    ),
  };
}

/** The host a link card's link opens (§10), or '' when the link is not one the card may open. */
export const linkHost = (req: Pick<AskUserRequest, 'url'>): string => (req.url && isWebUrl(req.url) ? new URL(req.url).host : '');

/** Every question has a mode this card can draw; else only cancel is offered. */
export const isAnswerable = (req: AskUserRequest): boolean => questionsOf(req).every((q) => isKnownMode(q.mode));

/**
 * The draft a new question starts from: its `default` (§9.1) pre-filled — the option of `single`, the options
 * of `multiple` and `toggle` (ids not on screen left out), the text of the other modes. Only a draft: the
 * user still submits it.
 */
export function initialDraft(req: Question | undefined): AnswerDraft {
  const d = req?.default;
  if (!req || d === undefined) return EMPTY_DRAFT;
  if (!isChoice(req.mode)) return isText(d) ? { ...EMPTY_DRAFT, text: d } : EMPTY_DRAFT;
  const ids = [d].flat().filter((id) => req.options?.some((o) => o.id === id));
  return { ...EMPTY_DRAFT, selected: req.mode === 'single' ? ids.slice(0, 1) : ids };
}

/** A normalizer that keeps its last object and result: each `request` is normalized once, not once per render. */
export function normalizedOnce(): (raw: unknown) => AskUserRequest | undefined {
  let last: { raw: unknown; req: AskUserRequest | undefined } | undefined;
  return (raw) => (last && last.raw === raw ? last : (last = { raw, req: isAskUserRequest(raw) ? normalizeRequest(raw) : undefined })).req;
}

/** The draft after an option's control changed: `single` keeps only the newly checked one. */
export function chooseOption(mode: string, draft: AnswerDraft, id: string, checked: boolean): AnswerDraft {
  const rest = mode === 'single' ? [] : draft.selected.filter((s) => s !== id);
  return { ...draft, selected: checked ? [...rest, id] : rest };
}

/**
 * The answer the draft stands for. Choice modes send the checked ids in option order (never a label);
 * free text is passed on exactly as typed — no trimming, so `number` sends "007" if that is what was typed.
 */
export function readAnswer(request: Pick<Question, 'mode' | 'options' | 'allowCustom'>, draft: AnswerDraft): Answer {
  if (!isChoice(request.mode)) return { selections: [], customInput: draft.text, cancelled: false };
  const picked = new Set(draft.selected);
  const ordered = (request.options ?? []).map((o) => o.id).filter((id) => picked.has(id));
  const selections = request.mode === 'single' ? ordered.slice(0, 1) : ordered;
  return { selections, customInput: request.allowCustom ? draft.other : '', cancelled: false };
}

export { CANCEL_ANSWER } from '../plugin/contract/tool-result.js';
export { MAX_CUSTOM_INPUT, boundValues, fieldAt, questionsOf, remainingMs, type AnswerField, type BoundValues } from './answer-fields.js';

/** The answer the drafts stand for: one question's, or §9.2 `answers`, one per question in order. */
export function readForm(req: AskUserRequest, drafts: readonly AnswerDraft[]): Answer {
  const qs = req.questions;
  if (!qs) return readAnswer(req, drafts[0] ?? EMPTY_DRAFT);
  const answers = qs.map((q, i) => {
    const { selections, customInput } = readAnswer(q, drafts[i] ?? EMPTY_DRAFT);
    return { id: q.id, selections, customInput };
  });
  return { selections: [], customInput: '', cancelled: false, answers };
}

/** `m:ss` under an hour, `h:mm:ss` above; rounds up so "0:00" is only shown once time is really up. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
