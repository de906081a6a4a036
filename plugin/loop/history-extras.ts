/**
 * What the loop keeps on a stored message beyond Chat Completions' own fields: the reasoning items a
 * Responses turn came with (sent back before the calls they preceded, so a reasoning model keeps its
 * reasoning across tool calls, pauses and restarts) and a tool result's content parts (images, …). Both
 * are Responses-only: a Chat Completions request gets the messages without them. A run stored before
 * these fields existed has none, and reads as it always did.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ToolContentPart } from '../tools/tool-content.js';

/** A reasoning output item as the Responses API takes it back as input. */
export interface KeptReasoning {
  id: string;
  /** Present when the endpoint sent it (`include: ['reasoning.encrypted_content']`); needed with `store: false`. */
  encrypted_content?: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  /** The call_id of the function call it came right before; absent: it came before the turn's text. */
  beforeCallId?: string;
}

/** The extra field of an assistant message: its turn's reasoning items, in output order. */
export const REASONING_FIELD = 'reasoningItems';
/** The extra field of a tool message: the result's content parts, when it has more than text. */
export const PARTS_FIELD = 'contentParts';

export function reasoningOf(message: ChatCompletionMessageParam): KeptReasoning[] {
  const kept = (message as { [REASONING_FIELD]?: unknown })[REASONING_FIELD];
  return Array.isArray(kept) ? (kept as KeptReasoning[]) : [];
}

export function partsOf(message: ChatCompletionMessageParam): ToolContentPart[] | undefined {
  const parts = (message as { [PARTS_FIELD]?: unknown })[PARTS_FIELD];
  return Array.isArray(parts) && parts.length > 0 ? (parts as ToolContentPart[]) : undefined;
}

/** `message` with its reasoning items kept, or as it is when there are none. */
export const withReasoning = <M extends ChatCompletionMessageParam>(message: M, reasoning: readonly KeptReasoning[]): M =>
  reasoning.length > 0 ? { ...message, [REASONING_FIELD]: [...reasoning] } : message;

/** `message` with its content parts kept, or as it is when there are none. */
export const withParts = <M extends ChatCompletionMessageParam>(message: M, parts: readonly ToolContentPart[] | undefined): M =>
  parts && parts.length > 0 ? { ...message, [PARTS_FIELD]: [...parts] } : message;

/** The history as Chat Completions takes it: the kit's extra fields left out (strict endpoints refuse unknown ones). */
export function forChatCompletions(messages: readonly ChatCompletionMessageParam[]): ChatCompletionMessageParam[] {
  return messages.map((m) => {
    if (!(REASONING_FIELD in m) && !(PARTS_FIELD in m)) return m;
    const { [REASONING_FIELD]: _r, [PARTS_FIELD]: _p, ...plain } = m as ChatCompletionMessageParam & Record<string, unknown>;
    return plain as ChatCompletionMessageParam;
  });
}
