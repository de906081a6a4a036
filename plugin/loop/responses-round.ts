/**
 * One streamed call of the OpenAI Responses API through the injected `openai` client, giving the same
 * round as a Chat Completions call (model-round.ts), so the loop, its run state and its resume do not
 * care which API the model speaks. The run keeps the whole history itself and sends it as input items
 * on every call, never `previous_response_id`: any Responses-compatible endpoint works, and a restart
 * or another instance continues from the store alone.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { FunctionTool, Response, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ASK_USER_TOOL_NAME, askUserResponsesTool, type ToolLocale } from '../contract/tool-definition.js';
import {
  asModelError,
  DEFAULT_MODEL_IDLE_TIMEOUT_MS,
  idleGuard,
  roundOutput,
  type ModelRoundInput,
  type ModelRoundOutput,
} from './model-round.js';
import type { AccumulatedToolCall } from './tool-call-accumulator.js';

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
      : '';

/** The history as Responses input items: messages by role, tool calls as `function_call`, results as `function_call_output`. */
export function toResponsesInput(messages: readonly ChatCompletionMessageParam[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'tool') items.push({ type: 'function_call_output', call_id: m.tool_call_id, output: text(m.content) });
    else if (m.role === 'assistant') {
      const said = text(m.content);
      if (said) items.push({ role: 'assistant', content: said });
      for (const c of m.tool_calls ?? []) {
        if (c.type === 'function')
          items.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
      }
    } else if (m.role === 'user' || m.role === 'system' || m.role === 'developer') items.push({ role: m.role, content: text(m.content) });
  }
  return items;
}

/** The tools in the Responses format: ask_user in strict mode, the host's tools as they are. */
export function toResponsesTools(tools: readonly ChatCompletionTool[], locale: ToolLocale): FunctionTool[] {
  return tools.flatMap((t): FunctionTool[] => {
    if (t.type !== 'function') return [];
    if (t.function.name === ASK_USER_TOOL_NAME) return [askUserResponsesTool(locale)];
    return [
      {
        type: 'function',
        name: t.function.name,
        description: t.function.description ?? null,
        parameters: t.function.parameters ?? null,
        strict: false,
      },
    ];
  });
}

interface CallInProgress {
  callId: string;
  name: string;
  arguments: string;
  done: boolean;
}

/** Text and function calls of a finished Response object (a proxy's JSON answer, or `response.completed`). */
function readResponse(response: Partial<Response>): { text: string; calls: AccumulatedToolCall[] } {
  let said = '';
  const calls: AccumulatedToolCall[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') said += item.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('');
    if (item.type === 'function_call') calls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
  }
  return { text: said, calls };
}

export async function streamResponsesRound(input: ModelRoundInput & { locale: ToolLocale }): Promise<ModelRoundOutput> {
  const { client, model, messages, tools, signal, onText, extra, locale, idleTimeoutMs = DEFAULT_MODEL_IDLE_TIMEOUT_MS } = input;
  const idle = idleGuard(signal, idleTimeoutMs);
  let said = '';
  let finishReason: string | null = null;
  const calls = new Map<string, CallInProgress>();
  let completed: { text: string; calls: AccumulatedToolCall[] } | undefined;
  try {
    const responsesTools = toResponsesTools(tools, locale);
    const { data: stream, response } = await client.responses
      .create(
        { ...extra, model, input: toResponsesInput(messages), stream: true, ...(responsesTools.length ? { tools: responsesTools } : {}) },
        { signal: idle.signal },
      )
      .withResponse();
    idle.touch();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // Some proxies answer a streaming request with the whole Response as JSON; read it rather than lose it.
      completed = readResponse((await response.json()) as Partial<Response>);
      if (completed.text) onText(completed.text);
      finishReason = 'completed';
    } else {
      for await (const event of stream as AsyncIterable<ResponseStreamEvent>) {
        idle.touch();
        if (event.type === 'response.output_text.delta') {
          said += event.delta;
          onText(event.delta);
        } else if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
          const key = event.item.id ?? event.item.call_id;
          calls.set(key, { callId: event.item.call_id, name: event.item.name, arguments: event.item.arguments ?? '', done: false });
        } else if (event.type === 'response.function_call_arguments.delta') {
          const call = calls.get(event.item_id);
          if (call) call.arguments += event.delta;
        } else if (event.type === 'response.output_item.done' && event.item.type === 'function_call') {
          // The finished item is the authority on the call: its arguments whole, whatever the deltas were.
          const key = event.item.id ?? event.item.call_id;
          calls.set(key, { callId: event.item.call_id, name: event.item.name, arguments: event.item.arguments, done: true });
        } else if (event.type === 'response.completed') {
          finishReason = 'completed';
          completed = readResponse(event.response);
        } else if (event.type === 'response.failed' || event.type === 'error' || event.type === 'response.incomplete') {
          throw new Error(`the response ended with ${event.type}`);
        }
      }
    }
    if (idle.fired) throw new Error('model stream idle');
  } catch (error) {
    throw asModelError(error, signal, idle.fired, idleTimeoutMs);
  } finally {
    idle.dispose();
  }
  // A stream cut before `response.completed` keeps only the calls the endpoint finished: a half-streamed
  // call would be run, or asked, on arguments the model never completed.
  const streamed = [...calls.values()].filter((c) => c.done).map((c) => ({ id: c.callId, name: c.name, arguments: c.arguments }));
  const final = completed && completed.calls.length + completed.text.length > 0 ? completed : { text: said, calls: streamed };
  return roundOutput(final.text || said, final.calls, finishReason, messages);
}
