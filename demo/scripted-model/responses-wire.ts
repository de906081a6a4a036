/**
 * The scripted model's Responses API face (`POST <base>/responses`): a request's input items are read
 * back as the Chat Completions history the scripted turns are written against, and a turn goes out as
 * the Responses stream events (or one Response object) a real endpoint sends.
 */
import type { ChatRequestBody, ScriptedTurn } from './scripted-turn.js';

type Item = Record<string, any>;

/** The Responses request as the chat body the scripted turns read (`messages`, `tools`), keeping its own fields. */
export function responsesBodyToChat(body: Record<string, any>): ChatRequestBody {
  const messages: ChatRequestBody['messages'] = [];
  const input: Item[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
  for (const item of input) {
    if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      // Consecutive calls belong to one assistant turn, as Chat Completions holds them.
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) last.tool_calls.push(call);
      else if (last?.role === 'assistant' && !last.tool_calls) last.tool_calls = [call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    } else if (item.role) {
      const content = typeof item.content === 'string' ? item.content : (item.content ?? []).map((p: Item) => p.text ?? '').join('');
      messages.push({ role: item.role, content });
    }
  }
  if (body.instructions) messages.unshift({ role: 'system', content: body.instructions });
  const tools = (body.tools ?? [])
    .filter((t: Item) => t.type === 'function')
    .map((t: Item) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
      strict: t.strict,
    }));
  return { ...body, model: body.model, messages, tools, stream: body.stream === true, api: 'responses' };
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/**
 * The encrypted content the scripted model gives a reasoning item: opaque to the client, but the model
 * can tell its own (strict-history.ts refuses any other), as the real API verifies what it issued.
 */
export const encryptReasoning = (id: string, summary: string) =>
  `enc_${Buffer.from(JSON.stringify({ id, summary }), 'utf8').toString('base64url')}`;

/** The reasoning item id an encrypted content was issued for, or undefined when it is not the model's own. */
export function decryptReasoning(content: string): { id: string; summary: string } | undefined {
  if (!content.startsWith('enc_')) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(content.slice(4), 'base64url').toString('utf8'));
    return typeof parsed?.id === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** What the request asked of the reply's form: encrypted reasoning (`include`). */
export interface ReplyOptions {
  encryptedReasoning?: boolean;
}

/** What a Responses request asks for, read from its body. */
export const replyOptionsOf = (body: Record<string, any>): ReplyOptions => ({
  encryptedReasoning: Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content'),
});

/**
 * The output items a turn stands for: its reasoning (a reasoning model's first item; encrypted content
 * only when asked for), a message with its text, then one function_call per tool call.
 */
function outputItems(turn: ScriptedTurn, options: ReplyOptions = {}): Item[] {
  const items: Item[] = [];
  if (turn.reasoning !== undefined) {
    const id = nextId('rs');
    items.push({
      type: 'reasoning',
      id,
      summary: turn.reasoning ? [{ type: 'summary_text', text: turn.reasoning }] : [],
      encrypted_content: options.encryptedReasoning ? encryptReasoning(id, turn.reasoning) : null,
      status: 'completed',
    });
  }
  if (turn.text) {
    items.push({
      type: 'message',
      id: nextId('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  }
  for (const c of turn.toolCalls ?? []) {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
    items.push({
      type: 'function_call',
      id: nextId('fc'),
      call_id: c.id ?? nextId('call'),
      name: c.name,
      arguments: args,
      status: 'completed',
    });
  }
  return items;
}

const responseObject = (id: string, model: string, status: string, output: Item[]) => ({
  id,
  object: 'response',
  created_at: Math.floor(Date.now() / 1000),
  model,
  status,
  output,
  parallel_tool_calls: true,
  tool_choice: 'auto',
  tools: [],
});

/** The whole Response object for a non-streaming request, or a proxy that answers with JSON. */
export function turnToResponse(turn: ScriptedTurn, model: string, options: ReplyOptions = {}): Record<string, unknown> {
  return responseObject(nextId('resp'), model, 'completed', outputItems(turn, options));
}

/**
 * The stream events for `turn`; without `response.completed` when `cut`, and only the first `turn.cutAt`
 * events when it says so (a stream that ends cleanly anywhere, inside a call's arguments too).
 */
export function turnToResponseEvents(turn: ScriptedTurn, model: string, cut = false, options: ReplyOptions = {}): Item[] {
  const id = nextId('resp');
  const size = Math.max(1, turn.chunkSize ?? 7);
  const items = outputItems(turn, options);
  const events: Item[] = [{ type: 'response.created', response: responseObject(id, model, 'in_progress', []) }];
  const calls: Array<{ item: Item; index: number; args: string[] }> = [];
  items.forEach((item, index) => {
    if (item.type === 'message') {
      events.push({ type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      for (const p of pieces(item.content[0].text, size)) {
        events.push({
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: p,
          logprobs: [],
        });
      }
      events.push({ type: 'response.output_item.done', output_index: index, item });
    } else if (item.type === 'reasoning') {
      // The added item's encrypted content may be incomplete (the SDK says to use the done item's).
      events.push({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, encrypted_content: null, status: 'in_progress' },
      });
      events.push({ type: 'response.output_item.done', output_index: index, item });
    } else calls.push({ item, index, args: pieces(item.arguments, size) });
  });
  const added = (c: (typeof calls)[number]) => ({
    type: 'response.output_item.added',
    output_index: c.index,
    item: { ...c.item, arguments: '', status: 'in_progress' },
  });
  const delta = (c: (typeof calls)[number], p: string) => ({
    type: 'response.function_call_arguments.delta',
    item_id: c.item.id,
    output_index: c.index,
    delta: p,
  });
  const done = (c: (typeof calls)[number]) => [
    { type: 'response.function_call_arguments.done', item_id: c.item.id, output_index: c.index, arguments: c.item.arguments },
    { type: 'response.output_item.done', output_index: c.index, item: c.item },
  ];
  if (turn.interleave) {
    // Parallel calls whose argument pieces arrive mixed, as some providers send them.
    events.push(...calls.map(added));
    const longest = Math.max(0, ...calls.map((c) => c.args.length));
    for (let i = 0; i < longest; i++) for (const c of calls) if (c.args[i] !== undefined) events.push(delta(c, c.args[i]!));
    for (const c of calls) events.push(...done(c));
  } else {
    for (const c of calls) events.push(added(c), ...c.args.map((p) => delta(c, p)), ...done(c));
  }
  if (!cut) events.push({ type: 'response.completed', response: responseObject(id, model, 'completed', items) });
  const sent = turn.cutAt !== undefined ? events.slice(0, turn.cutAt) : events;
  return sent.map((e, sequence_number) => ({ ...e, sequence_number }));
}
