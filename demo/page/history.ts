/**
 * Redrawing a session after a reload from `GET /api/session`: text bubbles, tool results, and for every
 * closed question a read-only receipt built from the ask_user arguments, the ToolResult the model received,
 * when it closed and what the run did next. It is drawn by `<ask-user-card>` itself (its `receipt`
 * property), so a redrawn receipt says and looks what the live card did. `historyEntries` is pure (tested
 * in Node); `historicReceipt` turns one receipt into a card.
 */
import type { AskUserCard, AskUserLocale, AskUserReceipt, AskUserRequest, DoneReason } from 'ask-user-kit/widget';

export interface SessionItem {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
  /** For an ask_user ToolResult: when the question closed, ISO. */
  at?: string;
}

export interface SessionView {
  sessionId: string;
  status: string;
  paused?: { requestId: string; toolCallId: string };
  items: SessionItem[];
  /** Tools the user allowed for the rest of the session on an approval card (§12 "always"). */
  alwaysAllowed?: string[];
}

/** A question of a §9.2 call, as far as its receipt needs it. */
export interface PastQuestion {
  id: string;
  header?: string;
  title: string;
  mode: string;
  options?: Array<{ id: string; label: string }>;
}

interface AskArgs {
  title?: string;
  mode?: string;
  options?: Array<{ id: string; label: string }>;
  questions?: PastQuestion[];
}

/** What a card of several questions sent, per question. */
export type PastAnswer = { id: string; selections: string[]; customInput: string };

interface ToolAnswer {
  selections?: string[];
  customInput?: string;
  answers?: PastAnswer[];
  cancelled: boolean;
  reason?: 'expired' | 'superseded';
}

/** What became of a past ask_user call that the user saw. */
export type ReceiptState = 'answered' | 'cancelled' | 'expired' | 'superseded';

export interface HistoricReceipt {
  toolCallId: string;
  title: string;
  /** The question's mode, which decides the answer's rows (as on the live card); '' when unknown. */
  mode?: string;
  state: ReceiptState;
  /** When it closed (ISO), when the server recorded it. */
  at?: string;
  /** For an answered question: how the run it continued ended; unset while that run still runs. */
  runEnded?: DoneReason;
  /** Labels of the chosen options (an id no longer among them as itself), when answered. */
  selections: string[];
  customInput: string;
  /** A card of several questions (§9.2): its questions, and when answered what each got (ids, as sent). */
  questions?: PastQuestion[];
  answers?: PastAnswer[];
}

export type HistoryEntry =
  | { kind: 'user' | 'assistant'; text: string }
  | { kind: 'tool'; name: string; content: string }
  | { kind: 'receipt'; receipt: HistoricReceipt };

const parse = (s: string | undefined): unknown => {
  try {
    return s ? JSON.parse(s) : undefined;
  } catch {
    return undefined;
  }
};

/** Only the answer and closed contents (plugin/contract/tool-result.ts, one question or §9.2) have this shape; a refusal is plain text. */
const isAnswer = (v: unknown): v is ToolAnswer =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as ToolAnswer).cancelled === 'boolean' &&
  (Array.isArray((v as ToolAnswer).selections) || Array.isArray((v as ToolAnswer).answers));

/** The §9.2 questions of a call's arguments, each with the fields its receipt row reads. */
const questionsOf = (q: AskArgs): PastQuestion[] | undefined =>
  Array.isArray(q.questions)
    ? q.questions.filter((x) => typeof x?.id === 'string' && typeof x.title === 'string' && typeof x.mode === 'string')
    : undefined;

/**
 * The receipt for a past ask_user call, or `undefined` for a call refused at interception (invalid
 * arguments, a second question in one turn, ask_user not offered): the model got an error text, the
 * user never saw a card, so there is nothing to redraw. A call with no ToolResult and no open card was
 * shown, but nothing came back before it lapsed, so it reads as expired.
 */
export function pastQuestion(toolCallId: string, args: string, result: string | undefined, at?: string): HistoricReceipt | undefined {
  const answer = parse(result);
  if (result !== undefined && !isAnswer(answer)) return undefined;
  const raw = parse(args);
  const q: AskArgs = typeof raw === 'object' && raw !== null ? (raw as AskArgs) : {};
  const title = typeof q.title === 'string' ? q.title : '';
  const questions = questionsOf(q);
  const known = {
    toolCallId,
    title,
    ...(questions ? { mode: 'form', questions } : typeof q.mode === 'string' ? { mode: q.mode } : {}),
    ...(at ? { at } : {}),
  };
  if (!isAnswer(answer)) return { ...known, state: 'expired', selections: [], customInput: '' };
  if (answer.cancelled) {
    const state = answer.reason === 'expired' || answer.reason === 'superseded' ? answer.reason : 'cancelled';
    return { ...known, state, selections: [], customInput: '' };
  }
  // The live card's receipt resolves labels from the questions; the redraw hands it the same ids.
  if (questions) return { ...known, state: 'answered', selections: [], customInput: '', answers: answer.answers ?? [] };
  const labels = (answer.selections ?? []).map(
    (id) => (Array.isArray(q.options) ? q.options.find((o) => o?.id === id)?.label : undefined) ?? id,
  );
  return { ...known, state: 'answered', selections: labels, customInput: typeof answer.customInput === 'string' ? answer.customInput : '' };
}

/**
 * How the run an answer continued ended, read from what followed its ToolResult up to the next user
 * message, as the live card learnt it from `done`: another question the user saw → `paused`; the model's
 * text → `completed`; nothing → `error`, or still running when it is the session's last turn and the run is.
 */
function runAfter(rest: SessionItem[], results: Map<string, string>, running: boolean): DoneReason | undefined {
  const end = rest.findIndex((i) => i.role === 'user');
  const turn = end < 0 ? rest : rest.slice(0, end);
  const asked = turn.some((i) =>
    (i.toolCalls ?? []).some((c) => c.name === 'ask_user' && (!results.has(c.id) || pastQuestion(c.id, c.arguments, results.get(c.id)))),
  );
  if (asked) return 'paused';
  if (end < 0 && running) return undefined;
  return turn.some((i) => i.role === 'assistant' && i.text) ? 'completed' : 'error';
}

/** Tool messages by tool_call_id, to pair each call with what the model got back. */
export function resultsById(items: SessionItem[]): Map<string, string> {
  return new Map(items.flatMap((i) => (i.role === 'tool' && i.toolCallId ? [[i.toolCallId, i.text ?? ''] as [string, string]] : [])));
}

/**
 * What the page redraws, in order. `openToolCallId` is the call of the card still open (drawn live from
 * `GET /api/interactions/pending`, not as a receipt). ask_user ToolResults are never shown as tool output:
 * the live page does not show them either.
 */
export function historyEntries(items: SessionItem[], openToolCallId?: string, running = false): HistoryEntry[] {
  const results = resultsById(items);
  const closedAt = new Map(items.flatMap((i) => (i.role === 'tool' && i.toolCallId && i.at ? [[i.toolCallId, i.at] as const] : [])));
  const calls = new Map(items.flatMap((x) => x.toolCalls ?? []).map((c) => [c.id, c] as const));
  const out: HistoryEntry[] = [];
  for (const [index, it] of items.entries()) {
    if (it.role === 'user') out.push({ kind: 'user', text: it.text ?? '' });
    if (it.role === 'assistant') {
      if (it.text) out.push({ kind: 'assistant', text: it.text });
      for (const call of it.toolCalls ?? []) {
        if (call.name !== 'ask_user' || call.id === openToolCallId) continue;
        const receipt = pastQuestion(call.id, call.arguments, results.get(call.id), closedAt.get(call.id));
        if (!receipt) continue;
        if (receipt.state === 'answered') {
          const after = items.slice(
            items.findIndex((i, n) => n > index && i.role === 'tool' && i.toolCallId === call.id) + 1 || items.length,
          );
          const runEnded = runAfter(after, results, running);
          if (runEnded) receipt.runEnded = runEnded;
        }
        out.push({ kind: 'receipt', receipt });
      }
    }
    if (it.role === 'tool') {
      const call = it.toolCallId ? calls.get(it.toolCallId) : undefined;
      if (call?.name !== 'ask_user') out.push({ kind: 'tool', name: call?.name ?? '', content: it.text ?? '' });
    }
  }
  return out;
}

/**
 * A question that is already closed, as an `<ask-user-card>` given the question as it was asked and its
 * `receipt`: read-only, silent, never focused (model text stays text there too). Without `locale` the
 * card follows its provider. `data-testid="historic-receipt"` is on the card. The page's import of
 * `ask-user-kit/widget` (main.ts) defines the element.
 */
export function historicReceipt(r: HistoricReceipt, locale?: AskUserLocale): AskUserCard {
  const card = document.createElement('ask-user-card');
  // One question's labels are already resolved, so no options: each "id" shows as itself. A §9.2 card
  // passes its questions, whose options turn the sent ids into labels as on the live card.
  card.request = {
    id: r.toolCallId,
    toolCallId: r.toolCallId,
    title: r.title,
    mode: (r.mode ?? '') as AskUserRequest['mode'],
    ...(r.questions && { questions: r.questions as AskUserRequest['questions'] }),
  };
  const receipt: AskUserReceipt = {
    kind: r.state,
    at: r.at,
    ...(r.state === 'answered' && (r.answers ? { answers: r.answers } : { selections: r.selections, customInput: r.customInput })),
    runEnded: r.runEnded,
  };
  card.receipt = receipt;
  if (locale) card.locale = locale;
  card.dataset.testid = 'historic-receipt';
  return card;
}
