/**
 * Redrawing a session after a reload from `GET /api/session`: text bubbles, and for every answered
 * question a static receipt built from the ask_user arguments and the ToolResult the model received.
 * Its words are the card's own (the widget's `STRINGS`), so a redrawn receipt says what the live card said.
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
  selections?: string[];
  customInput?: string;
  cancelled?: boolean;
  reason?: 'expired' | 'superseded';
}

const parse = <T>(s: string | undefined): T | undefined => {
  try {
    return s ? (JSON.parse(s) as T) : undefined;
  } catch {
    return undefined;
  }
};

/** A receipt for a question that is already closed, as plain DOM (text only, never HTML from the model). */
export function historicReceipt(args: string, result: string | undefined, s: AskUserStrings): HTMLElement {
  const q = parse<AskArgs>(args) ?? {};
  const a = parse<ToolAnswer>(result);
  const box = document.createElement('div');
  box.className = 'historic-receipt';
  box.dataset.testid = 'historic-receipt';
  const title = document.createElement('strong');
  title.textContent = q.title ?? '';
  const status = document.createElement('span');
  status.className = 'receipt-status';
  const state = !a
    ? s.receiptExpired
    : !a.cancelled
      ? s.receiptAnswered
      : a.reason === 'expired'
        ? s.receiptExpired
        : a.reason === 'superseded'
          ? s.receiptSuperseded
          : s.receiptCancelled;
  status.textContent = state;
  box.append(title, status);
  if (a && !a.cancelled) {
    const labels = (a.selections ?? []).map((id) => q.options?.find((o) => o.id === id)?.label ?? id);
    const line = document.createElement('div');
    const parts: string[] = [];
    if (labels.length) parts.push(`${s.receiptSelections}: ${labels.join(', ')}`);
    if (a.customInput) parts.push(`${s.receiptCustom}: ${a.customInput}`);
    line.textContent = parts.join(' · ') || s.receiptNothing;
    box.append(line);
  }
  return box;
}

/** Tool messages by tool_call_id, to pair each call with what the model got back. */
export function resultsById(items: SessionItem[]): Map<string, string> {
  return new Map(items.flatMap((i) => (i.role === 'tool' && i.toolCallId ? [[i.toolCallId, i.text ?? ''] as [string, string]] : [])));
}
