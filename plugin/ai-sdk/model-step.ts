/**
 * One model step through the AI SDK: a single `streamText` call (its default stop after one step), its
 * text streamed out as it arrives, ordinary tools run by the AI SDK as usual. What a step got wrong is
 * settled here before anything is stored: a silent endpoint ends the step, an error part fails it, and a
 * reply with neither text nor a tool call is an error, never a history entry.
 */
import { APICallError, RetryError, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { ModelCallError, idleGuard, DEFAULT_MODEL_IDLE_TIMEOUT_MS } from '../runs/model-call.js';

/** streamText options the runtime passes through as given (temperature, maxRetries, providerOptions, …). */
export type StepSettings = Omit<
  Parameters<typeof streamText>[0],
  'model' | 'messages' | 'prompt' | 'tools' | 'instructions' | 'system' | 'abortSignal' | 'stopWhen' | 'onError'
>;

export interface StepCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The AI SDK could not parse the call (bad JSON, unknown tool): it was not run. */
  invalid: boolean;
}

export interface StepInput {
  model: LanguageModel;
  messages: ModelMessage[];
  tools: ToolSet;
  instructions?: string;
  signal: AbortSignal;
  settings?: StepSettings;
  idleTimeoutMs?: number;
  onText(text: string): void;
}

export interface StepOutput {
  /** The step's response messages: the assistant turn and the results of the tools the AI SDK ran. */
  messages: ModelMessage[];
  calls: StepCall[];
  /** The AI SDK runs tools only after a `stop` or `tool-calls` finish; a cut stream ends otherwise. */
  finishReason: string | undefined;
}

export async function streamStep(input: StepInput): Promise<StepOutput> {
  const { model, messages, tools, instructions, signal, settings, onText, idleTimeoutMs = DEFAULT_MODEL_IDLE_TIMEOUT_MS } = input;
  const idle = idleGuard(signal, idleTimeoutMs);
  const calls: StepCall[] = [];
  let text = '';
  let failure: unknown;
  let finishReason: string | undefined;
  try {
    const result = streamText({
      ...settings,
      model,
      messages,
      tools,
      ...(instructions ? { instructions } : {}),
      abortSignal: idle.signal,
      // Failures are read from the stream's error part and reported once, by the runtime.
      onError: () => {},
    });
    for await (const part of result.stream) {
      idle.touch();
      if (part.type === 'text-delta' && part.text) {
        text += part.text;
        onText(part.text);
      } else if (part.type === 'tool-call' && !part.providerExecuted) {
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, invalid: part.invalid === true });
      } else if (part.type === 'finish-step') {
        finishReason = part.finishReason;
      } else if (part.type === 'error') {
        failure ??= part.error;
      }
    }
    if (idle.fired) throw new Error('model stream idle');
    if (failure !== undefined) throw failure;
    if (signal.aborted) return { messages: [], calls: [], finishReason };
    const response: ModelMessage[] = await result.responseMessages;
    if (calls.length === 0 && text.trim() === '') {
      // Strict endpoints refuse a history holding an empty assistant turn: never store one.
      throw new ModelCallError('the model replied with no text and no tool call', { code: 'empty_reply' });
    }
    return { messages: response, calls, finishReason };
  } catch (error) {
    throw stepError(error, signal, idle.fired, idleTimeoutMs);
  } finally {
    idle.dispose();
  }
}

/** A failed step in the loop's words: aborts pass through, silence is `model_timeout`, the rest `model_error` with the HTTP status. */
function stepError(error: unknown, signal: AbortSignal, idleFired: boolean, idleTimeoutMs: number): unknown {
  if (signal.aborted) return error;
  if (idleFired) return new ModelCallError(`the model endpoint sent nothing for ${idleTimeoutMs} ms`, { code: 'model_timeout' });
  if (error instanceof ModelCallError) return error;
  const api = RetryError.isInstance(error) ? error.lastError : error;
  const status = APICallError.isInstance(api) ? api.statusCode : undefined;
  return new ModelCallError(`model call failed${status ? ` with HTTP ${status}` : ''}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
    ...(status ? { status } : {}),
  });
}
