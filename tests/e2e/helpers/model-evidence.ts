/**
 * Checks on what the model was actually sent (the scripted server's recorded request bodies) and on the
 * raw SSE the page received. Failures say what is missing, in terms a reader of the evidence can check.
 */
import assert from 'node:assert/strict';
import { createParser } from 'eventsource-parser';
import type { ChatRequestBody, ScriptedModel } from '../../helpers/scripted-model.js';

type Message = ChatRequestBody['messages'][number];

export const answerContent = (selections: string[], customInput: string, cancelled = false) =>
  JSON.stringify({ selections, customInput, cancelled });
export const CANCEL_CONTENT = answerContent([], '', true);
export const closedContent = (reason: 'expired' | 'superseded') =>
  JSON.stringify({ selections: [], customInput: '', cancelled: true, reason });

/** Tool messages for `toolCallId` in one request body. */
export const toolMessagesFor = (body: ChatRequestBody, toolCallId: string): Message[] =>
  body.messages.filter((m) => m.role === 'tool' && m.tool_call_id === toolCallId);

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p as { text?: string }).text ?? '').join('')
      : String(content);

/**
 * Request `index` (0-based) of the model holds exactly one tool message for `toolCallId`, whose content is
 * exactly `content`, placed after the assistant message that made the call. Returns that request.
 */
export function assertToolResultSent(model: ScriptedModel, index: number, toolCallId: string, content: string): ChatRequestBody {
  const body = model.requests[index];
  assert.ok(
    body,
    `the model received only ${model.requests.length} request(s); no request #${index + 1} carrying the tool message for ${toolCallId}`,
  );
  const hits = toolMessagesFor(body, toolCallId);
  assert.ok(
    hits.length > 0,
    `no tool message for ${toolCallId} in the model's request #${index + 1} (roles: ${body.messages.map((m) => m.role).join(', ')})`,
  );
  assert.equal(hits.length, 1, `${hits.length} tool messages for ${toolCallId} in the model's request #${index + 1}; exactly one expected`);
  assert.equal(textOf(hits[0]!.content), content, `the tool message for ${toolCallId} does not carry the contract's exact content JSON`);
  const callAt = body.messages.findIndex((m) =>
    ((m.tool_calls as Array<{ id: string }> | undefined) ?? []).some((c) => c.id === toolCallId),
  );
  assert.ok(callAt >= 0, `request #${index + 1} has the tool message for ${toolCallId} but no assistant message making that call`);
  assert.ok(body.messages.indexOf(hits[0]!) > callAt, `the tool message for ${toolCallId} comes before the assistant call it answers`);
  return body;
}

/** The message list of `later` begins with every message of `earlier` (nothing rewritten, nothing dropped). */
export function assertHistoryExtends(earlier: ChatRequestBody, later: ChatRequestBody, what: string) {
  const strip = (m: Message) =>
    JSON.stringify({ role: m.role, content: m.content ?? null, tool_calls: m.tool_calls ?? null, tool_call_id: m.tool_call_id ?? null });
  const a = earlier.messages.map(strip);
  const b = later.messages.slice(0, a.length).map(strip);
  assert.deepEqual(b, a, `${what}: the later request does not start with the earlier request's history`);
}

/** The assistant message (in a later request) that made `toolCallId`, as the model sent it. */
export function assistantCall(body: ChatRequestBody, toolCallId: string) {
  for (const m of body.messages) {
    const call = ((m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }> | undefined) ?? []).find(
      (c) => c.id === toolCallId,
    );
    if (call) return call;
  }
  return undefined;
}

export interface RawEvent {
  event: string;
  data: any;
}

/** Parses raw SSE bytes with an independent parser (eventsource-parser), keeping every event. */
export function parseSse(raw: Buffer | string): RawEvent[] {
  return parseSseWithIds(raw).map(({ event, data }) => ({ event, data }));
}

/** The same, with each event's `id:` (docs/protocol.md §11) when it has one. */
export function parseSseWithIds(raw: Buffer | string): Array<RawEvent & { id: string | undefined }> {
  const events: Array<RawEvent & { id: string | undefined }> = [];
  const parser = createParser({
    onEvent: (e) => {
      let data: unknown = e.data;
      try {
        data = JSON.parse(e.data);
      } catch {
        /* kept as text */
      }
      events.push({ id: e.id, event: e.event ?? 'message', data });
    },
  });
  parser.feed(typeof raw === 'string' ? raw : raw.toString('utf8'));
  return events;
}

/** Event names with runs of message_delta folded, for order checks. */
export function shapeOf(events: RawEvent[]): string[] {
  const out: string[] = [];
  for (const { event } of events) if (!(event === 'message_delta' && out.at(-1) === 'message_delta')) out.push(event);
  return out;
}

export const textFrom = (events: RawEvent[]) =>
  events
    .filter((e) => e.event === 'message_delta')
    .map((e) => e.data.text)
    .join('');
