/**
 * One streamed Chat Completions call through the injected `openai` client: text pieces go out as they
 * arrive, tool-call deltas are joined by index, and the assistant message comes back ready for history.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { ToolCallAccumulator, type AccumulatedToolCall } from './tool-call-accumulator.js';

export interface ModelRoundInput {
  client: OpenAI;
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  signal: AbortSignal;
  onText(text: string): void;
  /** Extra request fields (temperature, …), passed through as given. */
  extra?: Record<string, unknown>;
}

export interface ModelRoundOutput {
  text: string;
  toolCalls: AccumulatedToolCall[];
  finishReason: string | null;
  assistant: ChatCompletionAssistantMessageParam;
}

export class ModelCallError extends Error {
  readonly code = 'model_error';
  /** The endpoint's HTTP status, when it answered with one. */
  readonly status: number | undefined;
  constructor(message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options);
    this.name = 'ModelCallError';
    this.status = options?.status;
  }
}

export async function streamModelRound(input: ModelRoundInput): Promise<ModelRoundOutput> {
  const { client, model, messages, tools, signal, onText, extra } = input;
  const acc = new ToolCallAccumulator();
  let text = '';
  let finishReason: string | null = null;
  try {
    const stream = await client.chat.completions.create(
      { ...extra, model, messages, stream: true, ...(tools.length ? { tools } : {}) },
      { signal },
    );
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      const piece = choice.delta?.content;
      if (piece) {
        text += piece;
        onText(piece);
      }
      acc.add(choice.delta?.tool_calls);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    if (signal.aborted) throw error;
    const status = (error as { status?: number }).status;
    throw new ModelCallError(`model call failed${status ? ` with HTTP ${status}` : ''}: ${(error as Error).message}`, { cause: error, ...(status ? { status } : {}) });
  }
  const toolCalls = acc.finish();
  const assistant: ChatCompletionAssistantMessageParam = {
    role: 'assistant',
    content: text.length > 0 ? text : null,
    ...(toolCalls.length
      ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
      : {}),
  };
  return { text, toolCalls, finishReason, assistant };
}
