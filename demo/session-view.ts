/**
 * `GET /api/session`: the run's history as the page redraws it after a refresh — user and assistant text,
 * tool calls with their results — without the system prompt; when each question closed, which the history
 * itself does not hold, so a redrawn receipt shows the time the live one did; and the tools the user allowed
 * for the rest of the session on an approval card (§12, "always").
 */
import type { AuditLogger, PendingStore } from 'ask-user-kit/plugin';
import type { RunState } from 'ask-user-kit/plugin/loop';

export interface SessionItem {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
  /** For an ask_user ToolResult: when the question closed (answered, cancelled, expired, superseded), ISO. */
  at?: string;
}

export interface SessionViewBody {
  sessionId: string;
  status: RunState['status'] | 'new';
  paused?: RunState['paused'];
  items: SessionItem[];
  /** Tools whose calls run without a card for the rest of the session (§12 "always"), in the order allowed. */
  alwaysAllowed: string[];
}

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? '').join('') : '';

/** ISO closing time of each question of a session, by tool call id. */
export type Closings = Record<string, string>;

/** One key per closed question, so recording a closing is one write that never reads first. */
const closingPrefix = (sessionId: string) => `demo:closing:${sessionId}:`;
const CLOSING_EVENTS = new Set(['answered', 'cancelled', 'expired', 'superseded']);

/**
 * Audit entries go on to `next`; a question's closing also stores its time next to the run, so any
 * instance sharing the store, or this one after a restart, can redraw it. An expired question closes at its
 * `expiresAt`, as the live card says. A failed write only costs the time on a redrawn receipt.
 */
export function recordClosings(store: PendingStore, next: AuditLogger): AuditLogger {
  return {
    audit(entry) {
      next.audit(entry);
      const { sessionId, toolCallId } = entry;
      if (!sessionId || !toolCallId || !CLOSING_EVENTS.has(entry.event)) return;
      const at = (entry.event === 'expired' && entry.expiresAt) || entry.at;
      // The first line wins: a roll-forward may log the same closing again, later.
      void store.putState(`${closingPrefix(sessionId)}${toolCallId}`, at, { ifVersion: null, sessionId }).catch(() => {});
    },
  };
}

/**
 * The closings of the session's tool results, one read each in the session's own place in the store (its
 * slot on a cluster): a scan by prefix would walk every key of every master on Redis.
 */
export async function closingsOf(store: PendingStore, sessionId: string, run: RunState | undefined): Promise<Closings> {
  const ids = (run?.messages ?? []).flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []));
  const closings: Closings = {};
  await Promise.all(
    ids.map(async (id) => {
      const at = await store.getState<string>(`${closingPrefix(sessionId)}${id}`, { sessionId });
      if (at) closings[id] = at.value;
    }),
  );
  return closings;
}

export function sessionView(sessionId: string, run: RunState | undefined, closings: Closings = {}): SessionViewBody {
  if (!run) return { sessionId, status: 'new', items: [], alwaysAllowed: [] };
  const items: SessionItem[] = [];
  for (const m of run.messages) {
    if (m.role === 'user') items.push({ role: 'user', text: text(m.content) });
    else if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).flatMap((c) =>
        c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
      );
      items.push({ role: 'assistant', text: text(m.content), ...(calls.length ? { toolCalls: calls } : {}) });
    } else if (m.role === 'tool') {
      const at = closings[m.tool_call_id];
      items.push({ role: 'tool', toolCallId: m.tool_call_id, text: text(m.content), ...(at ? { at } : {}) });
    }
  }
  const alwaysAllowed = [...(run.alwaysAllowed ?? [])];
  return { sessionId, status: run.status, ...(run.paused ? { paused: run.paused } : {}), items, alwaysAllowed };
}
