/**
 * `GET /api/session`: the run's history as the page redraws it after a refresh — user and assistant text,
 * tool calls with their results — without the system prompt.
 */
import type { RunState } from '../plugin/loop/index.js';

export interface SessionItem {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

export interface SessionViewBody {
  sessionId: string;
  status: RunState['status'] | 'new';
  paused?: RunState['paused'];
  items: SessionItem[];
}

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? '').join('') : '';

export function sessionView(sessionId: string, run: RunState | undefined): SessionViewBody {
  if (!run) return { sessionId, status: 'new', items: [] };
  const items: SessionItem[] = [];
  for (const m of run.messages) {
    if (m.role === 'user') items.push({ role: 'user', text: text(m.content) });
    else if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
      items.push({ role: 'assistant', text: text(m.content), ...(calls.length ? { toolCalls: calls } : {}) });
    } else if (m.role === 'tool') items.push({ role: 'tool', toolCallId: m.tool_call_id, text: text(m.content) });
  }
  return { sessionId, status: run.status, ...(run.paused ? { paused: run.paused } : {}), items };
}
