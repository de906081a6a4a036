/**
 * The AI SDK runtime through `@ai-sdk/openai-compatible` against the project's scripted Chat Completions
 * server over loopback, which refuses (400) any history holding a tool call without its result. Covers
 * the wire: the exact ToolResult as the `role: "tool"` message the endpoint receives, ask_user in
 * parallel with an ordinary tool, invalid arguments, a stream cut without its finish, an HTTP failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool } from 'ai';
import { z } from 'zod';
import { openStore } from '../../../plugin/index.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { startScriptedModel, type ScriptedTurn, type TurnScript } from '../../helpers/scripted-model.js';
import { dataOf, startAiServer } from './support.js';

const lookup = tool({
  description: 'Look a word up',
  inputSchema: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ word: q, found: true }),
});

async function setup(t: { after(fn: () => Promise<void>): void }, turns: TurnScript[], fallback?: ScriptedTurn) {
  const endpoint = await startScriptedModel({ turns, ...(fallback ? { fallback } : {}) });
  const provider = createOpenAICompatible({ name: 'scripted', baseURL: endpoint.baseURL, apiKey: 'sk-test' });
  const store = await openStore('memory');
  const server = await startAiServer(store, { model: provider.chatModel('scripted-1'), tools: { lookup }, locale: 'en' });
  t.after(async () => (await server.close(), await store.close(), await endpoint.close()));
  return { endpoint, server };
}

test('ask_user beside an ordinary tool: the endpoint gets both results, the answer exactly, in call order', async (t) => {
  const { endpoint, server } = await setup(t, [
    { text: 'Checking.', toolCalls: [{ id: 'c-look', name: 'lookup', arguments: { q: 'plan' } }, askSingle('c-ask')], interleave: true },
    { text: 'Done, safely.' },
  ]);
  const first = await server.chat('w1', 'plan a release');
  const card = dataOf(first, 'user_input_required')[0];
  assert.equal(card?.toolCallId, 'c-ask');
  assert.deepEqual(dataOf(first, 'tool_result'), [
    { toolCallId: 'c-look', name: 'lookup', content: '{"word":"plan","found":true}', isError: false },
  ]);
  const offered = endpoint.requests[0]!.tools!.map((x) => x.function.name).sort();
  assert.deepEqual(offered, ['ask_user', 'lookup']);
  const askDef = endpoint.requests[0]!.tools!.find((x) => x.function.name === 'ask_user')!;
  assert.match(String(askDef.function.description), /^Ask the user a structured question/);

  const cont = await server.answer({ sessionId: 'w1', requestId: card.id, selections: ['safe'], customInput: '  spaced  ' });
  assert.equal(cont.status, 200);
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  assert.equal(endpoint.requests.length, 2);
  const sent = endpoint.requests[1]!.messages;
  assert.deepEqual(
    sent.map((m) => m.role),
    ['user', 'assistant', 'tool', 'tool'],
  );
  assert.deepEqual(
    sent[1]!.tool_calls.map((c: { id: string }) => c.id),
    ['c-look', 'c-ask'],
  );
  assert.deepEqual(
    sent.slice(2).map((m) => [m.tool_call_id, m.content]),
    [
      ['c-look', '{"word":"plan","found":true}'],
      ['c-ask', '{"selections":["safe"],"customInput":"  spaced  ","cancelled":false}'],
    ],
  );
});

test('invalid ask_user JSON: nothing shown, the endpoint receives the is_error text as the tool message', async (t) => {
  const { endpoint, server } = await setup(t, [
    { toolCalls: [{ id: 'c-bad', name: 'ask_user', arguments: '{"title": "x", "mode":' }] },
    { text: 'ok' },
  ]);
  const frames = await server.chat('w2', 'go');
  assert.equal(dataOf(frames, 'user_input_required').length, 0);
  const [result] = dataOf(frames, 'tool_result');
  assert.equal(result.isError, true);
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }]);
  const tool = endpoint.requests[1]!.messages.find((m) => m.role === 'tool')!;
  assert.deepEqual([tool.tool_call_id, tool.content], ['c-bad', result.content]);
  assert.deepEqual((await server.pending('w2')).pending, null);
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'x',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const cutTurn = (finish: string | null): ScriptedTurn => ({
  raw: [
    chunk({ role: 'assistant', content: 'Half' }),
    chunk({ tool_calls: [{ index: 0, id: 'c-l', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'c-a', type: 'function', function: { name: 'ask_user', arguments: '{"title":"Pick' } }] }),
    ...(finish ? [chunk({}, finish)] : []),
  ],
  noDone: true,
});

/** Every assistant tool call of a request has exactly one tool message. */
function paired(messages: Array<{ role: string; [k: string]: any }>) {
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c: { id: string }) => c.id) : []));
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  assert.deepEqual([...calls].sort(), [...results].sort(), 'one result per call');
}

test('a stream cut inside ask_user arguments, without [DONE]: the question is refused, the other call runs, every call paired', async (t) => {
  const { endpoint, server } = await setup(t, [cutTurn('tool_calls'), { text: 'Recovered.' }]);
  const frames = await server.chat('w3', 'go');
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }], `got ${JSON.stringify(frames.map((f) => [f.event, f.data]))}`);
  assert.equal(dataOf(frames, 'user_input_required').length, 0, 'a cut-off question is not shown');
  assert.deepEqual(
    dataOf(frames, 'tool_result').map((r) => [r.toolCallId, r.isError]),
    [
      ['c-l', false],
      ['c-a', true],
    ],
  );
  assert.equal(endpoint.requests.length, 2, 'the strict endpoint accepted the history');
  paired(endpoint.requests[1]!.messages);
});

test('a stream cut without finish_reason: an error, nothing of the step stored, and the next message runs on a valid history', async (t) => {
  const { endpoint, server } = await setup(t, [cutTurn(null), { text: 'Fresh start.' }]);
  const frames = await server.chat('w5', 'go');
  assert.equal(frames.at(-1)?.event, 'done');
  assert.equal(dataOf(frames, 'error')[0]?.code, 'model_error', 'the provider calls an unfinished stream an invalid response');
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'error' }]);
  assert.deepEqual(
    (await server.runtime.getRun('w5'))?.messages.map((m) => m.role),
    ['user'],
  );
  const next = await server.chat('w5', 'again');
  assert.deepEqual(dataOf(next, 'done'), [{ reason: 'completed' }]);
  paired(endpoint.requests[1]!.messages);
  assert.deepEqual(
    endpoint.requests[1]!.messages.map((m) => m.role),
    ['user', 'user'],
  );
});

test('the endpoint failing: error model_error with its HTTP status, then done error; nothing stored for the step', async (t) => {
  const { server } = await setup(t, [{ failStatus: 500, failMessage: 'boom sk-secretsecret' }]);
  const frames = await server.chat('w4', 'go');
  assert.deepEqual(
    frames.map((f) => f.event),
    ['error', 'done'],
  );
  assert.equal(dataOf(frames, 'error')[0].code, 'model_error');
  assert.match(dataOf(frames, 'error')[0].message, /HTTP 500/);
  assert.doesNotMatch(JSON.stringify(frames), /secret/);
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'error' }]);
  const run = await server.runtime.getRun('w4');
  assert.deepEqual(
    run?.messages.map((m) => m.role),
    ['user'],
  );
  assert.equal(run?.status, 'idle');
});
