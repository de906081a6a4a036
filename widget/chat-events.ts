/**
 * Typed chat-stream events (docs/protocol.md §3) and the minimal-field checks that turn one SSE message into
 * one of them. Shapes come from `plugin/contract/schema.ts` as types only: zod never reaches the browser bundle,
 * so the checks here are deliberately small hand-written guards on the fields the widget relies on.
 */
import type { ChatEventMap, ChatEventName, PendingInteraction, UserInputRequired } from '../plugin/contract/schema.js';

export type { ChatEventMap, ChatEventName, PendingInteraction, UserInputRequired };

/**
 * One event of a chat stream: `event` names it, `data` is the parsed JSON of its `data:` lines, `id` the
 * frame's SSE id (`<runId>.<seq>`, docs/protocol.md §11) when it carried one.
 */
export type ChatEvent = { [K in ChatEventName]: { event: K; data: ChatEventMap[K]; id?: string } }[ChatEventName];

/** The event of name `K`, e.g. `ChatEventOf<'done'>`. */
export type ChatEventOf<K extends ChatEventName> = Extract<ChatEvent, { event: K }>;

type Guard = (data: Record<string, unknown>) => boolean;

/** A plain JSON object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (data: Record<string, unknown>, ...keys: string[]) => keys.every((k) => typeof data[k] === 'string');

/**
 * What each event must carry before the widget acts on it. `user_input_required` follows
 * docs/protocol.md §3 exactly (id, toolCallId, title, mode are strings); the others check what a consumer reads
 * first, so a half-formed event is dropped instead of surfacing as `undefined` deep in rendering code.
 */
const GUARDS: { [K in ChatEventName]: Guard } = {
  user_input_required: (d) => strings(d, 'id', 'toolCallId', 'title', 'mode'),
  interaction_resolved: (d) => strings(d, 'requestId', 'toolCallId', 'status'),
  tool_result: (d) => strings(d, 'toolCallId', 'content'),
  message_delta: (d) => strings(d, 'text'),
  done: (d) => strings(d, 'reason'),
  error: (d) => strings(d, 'code', 'message'),
};

// Pure: a bundle that never reads the names drops the call.
export const CHAT_EVENT_NAMES = /* @__PURE__ */ Object.keys(GUARDS) as ChatEventName[];

export const isChatEventName = (name: unknown): name is ChatEventName =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(GUARDS, name);

/** True when `data` passes the minimal check of docs/protocol.md §3 for a `user_input_required` payload. */
export const isUserInputRequired = (data: unknown): data is UserInputRequired => isRecord(data) && GUARDS.user_input_required(data);

/** The statuses `GET /api/interactions/pending` reports; the record type keeps them equal to the contract's. */
const PENDING_STATUSES: Record<PendingInteraction['status'], true> = { pending: true, expired: true };

export const isPendingStatus = (status: unknown): status is PendingInteraction['status'] =>
  typeof status === 'string' && Object.prototype.hasOwnProperty.call(PENDING_STATUSES, status);

/** A pending interaction as `GET /api/interactions/pending` returns it: the form plus its `status`. */
export const isPendingInteraction = (data: unknown): data is PendingInteraction =>
  isRecord(data) && GUARDS.user_input_required(data) && isPendingStatus(data.status);

/**
 * Maps an already-parsed SSE message to a typed event, or `null` when the name is unknown or the data
 * lacks what the event needs. Never throws.
 */
export function toChatEvent(name: string | undefined, data: unknown): ChatEvent | null {
  if (!isChatEventName(name) || !isRecord(data)) return null;
  if (!GUARDS[name](data)) return null;
  return { event: name, data } as ChatEvent;
}

/** Like {@link toChatEvent}, from the raw `data:` text. Malformed JSON yields `null`, not an exception. */
export function parseChatEvent(name: string | undefined, rawData: string): ChatEvent | null {
  if (!isChatEventName(name)) return null;
  let data: unknown;
  try {
    data = JSON.parse(rawData);
  } catch {
    return null;
  }
  return toChatEvent(name, data);
}
