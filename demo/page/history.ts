/**
 * Redrawing a session after a reload from `GET /api/session`: text bubbles, tool results, and for every
 * closed question a static receipt built from the ask_user arguments and the ToolResult the model received.
 * Its words are the card's own (the widget's `STRINGS`), so a redrawn receipt says what the live card said.
 * `historyEntries` is pure (tested in Node); `historicReceipt` turns one receipt into DOM.
 */
import type { AskUserStrings } from '../../widget/index.js';

export interface SessionItem {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

export interface SessionView {
  sessionId: string;
  status: string;
  paused?: { requestId: string; toolCallId: string };
  items: SessionItem[];
}

interface AskArgs {
  title?: string;
  options?: Array<{ id: string; label: string }>;
}

interface ToolAnswer {
  selections: string[];
  customInput: string;
  cancelled: boolean;
  reason?: 'expired' | 'superseded';
}

/** What became of a past ask_user call that the user saw. */
export type ReceiptState = 'answered' | 'cancelled' | 'expired' | 'superseded';

export interface HistoricReceipt {
  toolCallId: string;
  title: string;
  state: ReceiptState;
  /** Labels of the chosen options (an id no longer among them as itself), when answered. */
  selections: string[];
  customInput: string;
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

/** Only the answer and closed contents (plugin/tool-result.ts) have this shape; a refusal is plain text. */
const isAnswer = (v: unknown): v is ToolAnswer =>
  typeof v === 'object' && v !== null && typeof (v as ToolAnswer).cancelled === 'boolean' && Array.isArray((v as ToolAnswer).selections);

/**
 * The receipt for a past ask_user call, or `undefined` for a call refused at interception (invalid
 * arguments, a second question in one turn, ask_user not offered): the model got an error text, the
 * user never saw a card, so there is nothing to redraw. A call with no ToolResult and no open card was
 * shown, but nothing came back before it lapsed, so it reads as expired.
 */
export function pastQuestion(toolCallId: string, args: string, result: string | undefined): HistoricReceipt | undefined {
  const answer = parse(result);
  if (result !== undefined && !isAnswer(answer)) return undefined;
  const raw = parse(args);
  const q: AskArgs = typeof raw === 'object' && raw !== null ? (raw as AskArgs) : {};
  const title = typeof q.title === 'string' ? q.title : '';
  if (!isAnswer(answer)) return { toolCallId, title, state: 'expired', selections: [], customInput: '' };
  if (answer.cancelled) {
    const state = answer.reason === 'expired' || answer.reason === 'superseded' ? answer.reason : 'cancelled';
    return { toolCallId, title, state, selections: [], customInput: '' };
  }
  const labels = answer.selections.map((id) => (Array.isArray(q.options) ? q.options.find((o) => o?.id === id)?.label : undefined) ?? id);
  return { toolCallId, title, state: 'answered', selections: labels, customInput: typeof answer.customInput === 'string' ? answer.customInput : '' };
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
export function historyEntries(items: SessionItem[], openToolCallId?: string): HistoryEntry[] {
  const results = resultsById(items);
  const calls = new Map(items.flatMap((x) => x.toolCalls ?? []).map((c) => [c.id, c] as const));
  const out: HistoryEntry[] = [];
  for (const it of items) {
    if (it.role === 'user') out.push({ kind: 'user', text: it.text ?? '' });
    if (it.role === 'assistant') {
      if (it.text) out.push({ kind: 'assistant', text: it.text });
      for (const call of it.toolCalls ?? []) {
        if (call.name !== 'ask_user' || call.id === openToolCallId) continue;
        const receipt = pastQuestion(call.id, call.arguments, results.get(call.id));
        if (receipt) out.push({ kind: 'receipt', receipt });
      }
    }
    if (it.role === 'tool') {
      const call = it.toolCallId ? calls.get(it.toolCallId) : undefined;
      if (call?.name !== 'ask_user') out.push({ kind: 'tool', name: call?.name ?? '', content: it.text ?? '' });
    }
  }
  return out;
}

const STATE_KEY = {
  answered: 'receiptAnswered',
  cancelled: 'receiptCancelled',
  expired: 'receiptExpired',
  superseded: 'receiptSuperseded',
} as const satisfies Record<ReceiptState, keyof AskUserStrings>;

/** A receipt for a question that is already closed, as plain DOM (text only, never HTML from the model). */
export function historicReceipt(r: HistoricReceipt, s: AskUserStrings): HTMLElement {
  const box = document.createElement('div');
  box.className = 'historic-receipt';
  box.dataset.testid = 'historic-receipt';
  const title = document.createElement('strong');
  title.textContent = r.title;
  const status = document.createElement('span');
  status.className = 'receipt-status';
  status.textContent = s[STATE_KEY[r.state]];
  box.append(title, status);
  if (r.state === 'answered') {
    const line = document.createElement('div');
    const parts: string[] = [];
    if (r.selections.length) parts.push(`${s.receiptSelections}: ${r.selections.join(', ')}`);
    if (r.customInput) parts.push(`${s.receiptCustom}: ${r.customInput}`);
    line.textContent = parts.join(' · ') || s.receiptNothing;
    box.append(line);
  }
  return box;
}
