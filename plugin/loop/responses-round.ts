/**
 * One streamed call of the OpenAI Responses API through the injected `openai` client, giving the same
 * round as a Chat Completions call (model-round.ts), so the loop, its run state and its resume do not
 * care which API the model speaks. The run keeps the whole history itself and sends it as input items
 * on every call, never `previous_response_id`: any Responses-compatible endpoint works, and a restart
 * or another instance continues from the store alone. Nothing is kept on the provider's side unless the
 * host opts in (`store`); a reasoning model's reasoning items travel in the history instead, encrypted.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  Response,
  ResponseFunctionCallOutputItem,
  ResponseIncludable,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { ASK_USER_TOOL_NAME, askUserResponsesTool, type ToolLocale } from '../contract/tool-definition.js';
import { partsOf, reasoningOf, withReasoning, type KeptReasoning } from './history-extras.js';
import { asModelError, roundOutput, type ModelRoundInput, type ModelRoundOutput } from './model-round.js';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, idleGuard, ModelCallError } from '../runs/model-call.js';
import type { AccumulatedToolCall } from './tool-call-accumulator.js';
import { describePart, type ToolContentPart } from '../tools/tool-content.js';

const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
      : '';

/** How the loop talks to a Responses endpoint; one object per loop, shared by its rounds. */
export interface ResponsesWire {
  /** Sent as `store`: false keeps nothing of the run on the provider's side. */
  store: boolean;
  /**
   * Ask for `reasoning.encrypted_content` (only with `store: false`, where reasoning cannot be referenced by id).
   * Turned off for the rest of the loop's life once the endpoint refuses it, as OpenAI does for models that
   * do not reason.
   */
  encryptedReasoning: boolean;
}

const reasoningInput = (r: KeptReasoning): ResponseInputItem => ({
  type: 'reasoning',
  id: r.id,
  summary: r.summary,
  ...(r.encrypted_content ? { encrypted_content: r.encrypted_content } : {}),
});

/**
 * The history as Responses input items: messages by role, an assistant turn's reasoning items before what
 * they preceded, tool calls as `function_call`, results as `function_call_output` (with their images).
 * With `store: false` a reasoning item without its encrypted content is left out: the endpoint kept
 * nothing to find it by, and refuses the whole request for it.
 */
export function toResponsesInput(messages: readonly ChatCompletionMessageParam[], options: { store?: boolean } = {}): ResponseInputItem[] {
  const { store = false } = options;
  const items: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      const parts = partsOf(m);
      items.push({ type: 'function_call_output', call_id: m.tool_call_id, output: parts ? responsesToolOutput(parts) : text(m.content) });
    } else if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
      const reasoning = reasoningOf(m).filter((r) => store || r.encrypted_content);
      const before = (callId: string | undefined) => reasoning.filter((r) => r.beforeCallId === callId).map(reasoningInput);
      const known = new Set(calls.map((c) => c.id));
      items.push(...reasoning.filter((r) => r.beforeCallId === undefined || !known.has(r.beforeCallId)).map(reasoningInput));
      const said = text(m.content);
      if (said) items.push({ role: 'assistant', content: said });
      for (const c of calls) {
        items.push(...before(c.id));
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

/** A reasoning item of a reply, with the index (among the reply's calls) of the call it came right before. */
type ReadReasoning = Omit<KeptReasoning, 'beforeCallId'> & { beforeCall?: number };

/** Text, function calls and reasoning items of a finished reply's output items, in output order. */
function readOutput(output: readonly ResponseOutputItem[]): { text: string; calls: AccumulatedToolCall[]; reasoning: ReadReasoning[] } {
  let said = '';
  const calls: AccumulatedToolCall[] = [];
  const reasoning: ReadReasoning[] = [];
  let waiting: ReadReasoning[] = [];
  for (const item of output) {
    if (item.type === 'reasoning') {
      const kept: ReadReasoning = {
        id: item.id,
        summary: (item.summary ?? []).map((s) => ({ type: 'summary_text' as const, text: s.text })),
        ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}),
      };
      reasoning.push(kept);
      waiting.push(kept);
      continue;
    }
    if (item.type === 'function_call') {
      for (const r of waiting) r.beforeCall = calls.length;
      calls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item.type === 'message') said += item.content.map((c) => (c.type === 'output_text' ? c.text : '')).join('');
    waiting = [];
  }
  return { text: said, calls, reasoning };
}

const hasContent = (output: readonly ResponseOutputItem[]) =>
  output.some((i) => i.type === 'message' || i.type === 'function_call' || i.type === 'reasoning');

/** An endpoint that does not do encrypted reasoning for this model says so about `include` (OpenAI: 400). */
function refusedInclude(error: unknown): boolean {
  const e = error as { status?: number; message?: string; error?: { param?: string; message?: string } };
  const said = `${e?.error?.message ?? ''} ${e?.message ?? ''}`;
  return e?.status === 400 && (e.error?.param === 'include' || /encrypted.content|\binclude\b/i.test(said));
}

/** Why a reply that did not complete is not one, in fixed words (no model text). */
function notCompleted(response: Partial<Response> | undefined, event: string): ModelCallError {
  const reason = response?.incomplete_details?.reason;
  const code = response?.error?.code;
  return new ModelCallError(
    `the response ended with ${event}${reason ? ` (${reason})` : ''}${code ? ` (${code})` : ''}; nothing of it was kept`,
  );
}

export async function streamResponsesRound(
  input: ModelRoundInput & { locale: ToolLocale; wire?: ResponsesWire },
): Promise<ModelRoundOutput> {
  const { client, model, messages, tools, signal, onText, extra, locale, idleTimeoutMs = DEFAULT_MODEL_IDLE_TIMEOUT_MS } = input;
  const wire = input.wire ?? { store: false, encryptedReasoning: true };
  const idle = idleGuard(signal, idleTimeoutMs);
  let said = '';
  const done = new Map<number, ResponseOutputItem>();
  let completed: ResponseOutputItem[] | undefined;
  try {
    const responsesTools = toResponsesTools(tools, locale);
    const request = (askReasoning: boolean) => {
      const asked = (extra?.include as ResponseIncludable[] | undefined) ?? [];
      const include: ResponseIncludable[] = askReasoning ? [...new Set([...asked, 'reasoning.encrypted_content' as const])] : asked;
      return client.responses
        .create(
          {
            ...extra,
            model,
            input: toResponsesInput(messages, { store: wire.store }),
            stream: true,
            store: wire.store,
            ...(include.length ? { include } : {}),
            ...(responsesTools.length ? { tools: responsesTools } : {}),
          },
          { signal: idle.signal },
        )
        .withResponse();
    };
    const askReasoning = !wire.store && wire.encryptedReasoning;
    let answered;
    try {
      answered = await request(askReasoning);
    } catch (error) {
      if (!askReasoning || signal.aborted || !refusedInclude(error)) throw error;
      wire.encryptedReasoning = false;
      idle.touch();
      answered = await request(false);
    }
    const { data: stream, response } = answered;
    idle.touch();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // Some proxies answer a streaming request with the whole Response as JSON; read it rather than lose it.
      const whole = (await response.json()) as Partial<Response>;
      if (whole.status !== undefined && whole.status !== 'completed') throw notCompleted(whole, `status ${whole.status}`);
      completed = whole.output ?? [];
    } else {
      for await (const event of stream as AsyncIterable<ResponseStreamEvent>) {
        idle.touch();
        if (event.type === 'response.output_text.delta') {
          said += event.delta;
          onText(event.delta);
        } else if (event.type === 'response.output_item.done') {
          // The finished item is the authority: a call's arguments whole, a reasoning item's encrypted content.
          done.set(event.output_index, event.item);
        } else if (event.type === 'response.completed') {
          completed = event.response.output ?? [];
        } else if (event.type === 'response.failed' || event.type === 'response.incomplete') {
          throw notCompleted(event.response, event.type);
        } else if (event.type === 'error') {
          throw new ModelCallError(`the response stream sent an error event${event.code ? ` (${event.code})` : ''}`);
        }
      }
    }
    if (idle.fired) throw new Error('model stream idle');
    // A stream that ends without `response.completed` was cut: nothing of it is a reply, not even the
    // calls that finished (the model may have had more to say, or calls still to make).
    if (!completed) throw new ModelCallError('the response stream ended before response.completed; nothing of it was kept');
  } catch (error) {
    throw asModelError(error, signal, idle.fired, idleTimeoutMs);
  } finally {
    idle.dispose();
  }
  const streamed = [...done.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  const read = readOutput(completed && hasContent(completed) ? withDoneReasoning(completed, streamed) : streamed);
  // A JSON answer streamed nothing: its text goes out now, as one piece.
  if (!said && read.text) onText(read.text);
  const out = roundOutput(read.text || said, read.calls, 'completed', messages);
  // Call ids may have been replaced (tool-call-ids.ts): a reasoning item follows its call by position.
  const reasoning: KeptReasoning[] = read.reasoning.map(({ beforeCall, ...r }) => ({
    ...r,
    ...(beforeCall !== undefined && out.toolCalls[beforeCall] ? { beforeCallId: out.toolCalls[beforeCall]!.id } : {}),
  }));
  return { ...out, assistant: withReasoning(out.assistant, reasoning) };
}

/**
 * The completed output, with a reasoning item's encrypted content taken from its `output_item.done` when
 * the completed copy lacks it (the SDK's advice: the done item carries it whole).
 */
function withDoneReasoning(output: readonly ResponseOutputItem[], streamed: readonly ResponseOutputItem[]): ResponseOutputItem[] {
  const byId = new Map(streamed.flatMap((i) => (i.type === 'reasoning' ? [[i.id, i] as const] : [])));
  return output.map((i) =>
    i.type === 'reasoning' && !i.encrypted_content && byId.get(i.id)?.encrypted_content
      ? { ...i, encrypted_content: byId.get(i.id)!.encrypted_content }
      : i,
  );
}

const dataUrl = (mimeType: string, data: string) => `data:${mimeType};base64,${data}`;
const fileName = (uri: string) => decodeURIComponent(uri.split(/[/\\]/).pop() || 'file') || 'file';

/**
 * The parts as a Responses `function_call_output` list: text as `input_text`, images (also an embedded
 * image resource) as `input_image` data URLs, an embedded PDF as `input_file`; audio, other binary
 * resources and links as `input_text` lines, since a function output cannot carry them.
 */
export function responsesToolOutput(parts: readonly ToolContentPart[]): ResponseFunctionCallOutputItem[] {
  return parts.map((part): ResponseFunctionCallOutputItem => {
    if (part.type === 'image' && part.data) return { type: 'input_image', image_url: dataUrl(part.mimeType, part.data), detail: 'auto' };
    if (part.type === 'resource' && part.blob && part.mimeType?.startsWith('image/'))
      return { type: 'input_image', image_url: dataUrl(part.mimeType, part.blob), detail: 'auto' };
    if (part.type === 'resource' && part.blob && part.mimeType === 'application/pdf')
      return { type: 'input_file', filename: fileName(part.uri), file_data: dataUrl(part.mimeType, part.blob) };
    return { type: 'input_text', text: describePart(part) };
  });
}
