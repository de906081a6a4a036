/**
 * One streamed Chat Completions call through the injected `openai` client: text pieces go out as they
 * arrive, tool-call deltas are joined, and the assistant message comes back ready for history. What
 * real endpoints get wrong is settled here, before anything is stored: a plain JSON answer to a
 * streaming request is read as the completion it is, unusable tool call ids are replaced, a stream that
 * goes quiet is ended, and a reply with neither text nor tool calls is an error, never a history entry.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { ToolCallAccumulator, type AccumulatedToolCall } from './tool-call-accumulator.js';
import { withUsableIds } from './tool-call-ids.js';
import { forChatCompletions } from './history-extras.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, idleGuard, ModelCallError } from '../runs/model-call.js';

export interface ModelRoundInput {
  client: OpenAI;
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  signal: AbortSignal;
  onText(text: string): void;
  /** Extra request fields (temperature, …), passed through as given. */
  extra?: Record<string, unknown>;
  /** Longest silence allowed from the endpoint, before its headers and between chunks. @default 120000 */
  idleTimeoutMs?: number;
}

export interface ModelRoundOutput {
  text: string;
  toolCalls: AccumulatedToolCall[];
  finishReason: string | null;
  assistant: ChatCompletionAssistantMessageParam;
}

export async function streamModelRound(input: ModelRoundInput): Promise<ModelRoundOutput> {
  const { client, model, messages, tools, signal, onText, extra, idleTimeoutMs = DEFAULT_MODEL_IDLE_TIMEOUT_MS } = input;
  const acc = new ToolCallAccumulator();
  let text = '';
  let finishReason: string | null = null;
  const idle = idleGuard(signal, idleTimeoutMs);
  try {
    const { data: stream, response } = await client.chat.completions
      .create(
        { ...extra, model, messages: forChatCompletions(messages), stream: true, ...(tools.length ? { tools } : {}) },
        { signal: idle.signal },
      )
      .withResponse();
    idle.touch();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // Some proxies answer a streaming request with one JSON completion; read it rather than lose it.
      const completion = (await response.json()) as Partial<ChatCompletion>;
      const message = completion.choices?.[0]?.message;
      if (message?.content) onText((text = message.content));
      acc.add(message?.tool_calls?.map((c) => ({ id: c.id, ...(c.type === 'function' ? { function: c.function } : {}) })));
      acc.addLegacy(message?.function_call);
      finishReason = completion.choices?.[0]?.finish_reason ?? null;
    } else {
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        idle.touch();
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const piece = choice.delta?.content;
        if (piece) {
          text += piece;
          onText(piece);
        }
        acc.add(choice.delta?.tool_calls);
        acc.addLegacy(choice.delta?.function_call);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    }
    // The SDK ends an aborted stream quietly: a silence that tripped the guard is an error, not an end.
    if (idle.fired) throw new Error('model stream idle');
  } catch (error) {
    throw asModelError(error, signal, idle.fired, idleTimeoutMs);
  } finally {
    idle.dispose();
  }
  return roundOutput(text, acc.finish(), finishReason, messages);
}

/** A failed call in the loop's words: aborts pass through, silence is `model_timeout`, the rest `model_error` with the status. */
export function asModelError(error: unknown, signal: AbortSignal, idleFired: boolean, idleTimeoutMs: number): unknown {
  if (signal.aborted) return error;
  if (idleFired) return new ModelCallError(`the model endpoint sent nothing for ${idleTimeoutMs} ms`, { code: 'model_timeout' });
  if (error instanceof ModelCallError) return error;
  const status = (error as { status?: number }).status;
  return new ModelCallError(`model call failed${status ? ` with HTTP ${status}` : ''}: ${(error as Error).message}`, {
    cause: error,
    ...(status ? { status } : {}),
  });
}

/** The round as history holds it, whichever API it came from: unusable call ids replaced, an empty reply refused. */
export function roundOutput(
  text: string,
  calls: AccumulatedToolCall[],
  finishReason: string | null,
  messages: readonly ChatCompletionMessageParam[],
): ModelRoundOutput {
  const toolCalls = withUsableIds(calls, messages);
  if (toolCalls.length === 0 && text.trim() === '') {
    // Strict endpoints refuse a history holding an assistant turn with neither: never store one.
    throw new ModelCallError(`the model replied with no text and no tool call (finish_reason ${finishReason ?? 'none'})`, {
      code: 'empty_reply',
    });
  }
  const assistant: ChatCompletionAssistantMessageParam = {
    role: 'assistant',
    content: text.length > 0 ? text : null,
    ...(toolCalls.length
      ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
  return { text, toolCalls, finishReason, assistant };
}
