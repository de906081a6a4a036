/**
 * The AI SDK runtime against the AI SDK's own mock model (MockLanguageModelV4), over real HTTP: ask,
 * pause, continue exactly once, the model's next call carrying the exact ToolResult; a host tool run by
 * the AI SDK in the same turn; cancel; a second continue; invalid ask_user arguments; a new message
 * superseding an open card; a stream cut without its finish part.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tool } from 'ai';
import { z } from 'zod';
import { openStore } from '../../../plugin/index.js';
import { fromLoopTools } from '../../../plugin/ai-sdk/index.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { mockModel, toolResultsOf, type MockTurn } from './mock-model.js';
import { dataOf, eventsOf, startAiServer } from './support.js';

const lookup = tool({
  description: 'Look a word up',
  inputSchema: z.object({ q: z.string() }),
  execute: async ({ q }) => `found ${q}`,
});

async function setup(t: { after(fn: () => Promise<void>): void }, turns: MockTurn[]) {
  const store = await openStore('memory');
  const mock = mockModel(turns);
  const server = await startAiServer(store, { model: mock.model, tools: { lookup } });
  t.after(async () => (await server.close(), await store.close()));
  return { store, mock, server };
}

test('ask → pause → continue: the next model call reads the exact ToolResult, after the host tool of the same turn', async (t) => {
  const { mock, server } = await setup(t, [
    { text: 'Let me check. ', toolCalls: [{ id: 'c-look', name: 'lookup', arguments: { q: 'plan' } }, askSingle('c-ask')] },
    { text: 'Going the safe way.' },
  ]);
  const first = await server.chat('s1', 'plan a release');
  assert.deepEqual(eventsOf(first), [
    ...eventsOf(first).filter((e) => e === 'message_delta'),
    'tool_result',
    'user_input_required',
    'done',
  ]);
  assert.deepEqual(dataOf(first, 'tool_result'), [{ toolCallId: 'c-look', name: 'lookup', content: 'found plan', isError: false }]);
  const card = dataOf(first, 'user_input_required')[0];
  assert.equal(card.toolCallId, 'c-ask');
  assert.equal(card.resumable, true);
  assert.deepEqual(dataOf(first, 'done'), [{ reason: 'paused' }]);
  assert.equal(mock.prompts.length, 1);
  assert.equal((await server.pending('s1')).pending.id, card.id);
  assert.equal((await server.runtime.getRun('s1'))?.status, 'paused');

  const cont = await server.answer({ sessionId: 's1', requestId: card.id, selections: ['safe'], customInput: 'careful' });
  assert.equal(cont.status, 200);
  const exact = '{"selections":["safe"],"customInput":"careful","cancelled":false}';
  assert.deepEqual(eventsOf(cont.frames).slice(0, 2), ['interaction_resolved', 'tool_result']);
  assert.deepEqual(dataOf(cont.frames, 'tool_result')[0], { toolCallId: 'c-ask', name: 'ask_user', content: exact, isError: false });
  assert.equal(
    dataOf(cont.frames, 'message_delta')
      .map((d) => d.text)
      .join(''),
    'Going the safe way.',
  );
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  assert.equal(mock.prompts.length, 2, 'the model was called once more');
  const results = toolResultsOf(mock.prompts[1]!);
  assert.deepEqual(
    results.map((r) => [r.toolCallId, r.output]),
    [
      ['c-look', { type: 'text', value: 'found plan' }],
      ['c-ask', { type: 'text', value: exact }],
    ],
    'every call has one result, in call order, the answer exactly as the core wrote it',
  );
  const again = await server.answer({ sessionId: 's1', requestId: card.id, selections: ['implement'] });
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, 'already_answered');
  assert.equal(mock.prompts.length, 2, 'a second continue calls nothing');
});

test('cancel ends the run with done cancelled and no model call', async (t) => {
  const { mock, server } = await setup(t, [{ toolCalls: [askSingle('c-x')] }]);
  const card = dataOf(await server.chat('s2', 'go'), 'user_input_required')[0];
  const cont = await server.answer({ sessionId: 's2', requestId: card.id, cancelled: true });
  assert.equal(cont.status, 200);
  assert.deepEqual(eventsOf(cont.frames), ['interaction_resolved', 'tool_result', 'done']);
  assert.equal(dataOf(cont.frames, 'tool_result')[0].content, '{"selections":[],"customInput":"","cancelled":true}');
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'cancelled' }]);
  assert.equal(mock.prompts.length, 1);
  const run = await server.runtime.getRun('s2');
  assert.equal(run?.status, 'idle');
  assert.equal((await server.answer({ sessionId: 's2', requestId: card.id })).status, 409);
});

test('invalid ask_user arguments: nothing is shown, the model gets the coordinator is_error result and goes on', async (t) => {
  const { mock, server } = await setup(t, [
    { toolCalls: [{ id: 'c-bad', name: 'ask_user', arguments: { title: '', mode: 'single', options: [] } }] },
    { toolCalls: [{ id: 'c-nojson', name: 'ask_user', arguments: '{"title": "Half' }] },
    { text: 'I will ask properly later.' },
  ]);
  const frames = await server.chat('s3', 'go');
  assert.equal(dataOf(frames, 'user_input_required').length, 0, 'no card');
  const results = dataOf(frames, 'tool_result');
  assert.deepEqual(
    results.map((r) => [r.toolCallId, r.name, r.isError]),
    [
      ['c-bad', 'ask_user', true],
      ['c-nojson', 'ask_user', true],
    ],
  );
  assert.match(results[0].content, /^ask_user was not shown to the user because its arguments are invalid: /);
  assert.match(results[1].content, /not valid JSON/);
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }]);
  assert.deepEqual(toolResultsOf(mock.prompts[1]!)[0]!.output, { type: 'error-text', value: results[0].content });
  assert.deepEqual((await server.pending('s3')).pending, null);
});

test('a new message supersedes the open card: its closing ToolResult goes in before the new message runs', async (t) => {
  const { mock, server } = await setup(t, [{ toolCalls: [askSingle('c-old')] }, { text: 'ok, new plan' }]);
  const card = dataOf(await server.chat('s4', 'first'), 'user_input_required')[0];
  const frames = await server.chat('s4', 'never mind, do this');
  assert.equal(dataOf(frames, 'interaction_resolved')[0].status, 'superseded');
  const closing = '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}';
  assert.equal(dataOf(frames, 'tool_result')[0].content, closing);
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }]);
  const prompt = mock.prompts[1]!;
  assert.deepEqual(toolResultsOf(prompt)[0]!.output, { type: 'text', value: closing });
  assert.equal(prompt.at(-1)?.role, 'user');
  assert.equal((await server.answer({ sessionId: 's4', requestId: card.id })).status, 409);
});

test('a stream cut without its finish part: no crash, no hang, every call answered before the next model call', async (t) => {
  const { mock, server } = await setup(t, [
    { text: 'Looking', toolCalls: [{ id: 'c-cut', name: 'lookup', arguments: { q: 'x' } }], cut: true },
    { text: 'half a sentence', cut: true },
  ]);
  const frames = await server.chat('s5', 'go');
  assert.equal(dataOf(frames, 'done').length, 1);
  assert.equal(frames.at(-1)?.event, 'done');
  for (const [i, prompt] of mock.prompts.entries()) {
    const calls = prompt.flatMap((m) =>
      m.role === 'assistant' && typeof m.content !== 'string' ? m.content.filter((p) => p.type === 'tool-call') : [],
    );
    const answered = new Set(toolResultsOf(prompt).map((r) => r.toolCallId));
    for (const c of calls) assert.ok(answered.has((c as { toolCallId: string }).toolCallId), `prompt ${i}: call without a result`);
  }
  // The AI SDK runs no tool after an unfinished step: the call is answered as not run, and the model goes on.
  const [cut] = dataOf(frames, 'tool_result');
  assert.deepEqual([cut.toolCallId, cut.isError], ['c-cut', true]);
  assert.match(cut.content, /cut off .* it was not run/);
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }], 'what arrived is kept as the reply');
  assert.equal(mock.prompts.length, 2);
  assert.equal((await server.runtime.getRun('s5'))?.status, 'idle');
});

test('two ask_user calls in one turn: the first is asked, the second told to wait; the answer lands in call order', async (t) => {
  const { mock, server } = await setup(t, [{ toolCalls: [askSingle('c-1'), askSingle('c-2')] }, { text: 'thanks' }]);
  const frames = await server.chat('s6', 'go');
  assert.deepEqual(
    dataOf(frames, 'user_input_required').map((d) => d.toolCallId),
    ['c-1'],
  );
  const [refused] = dataOf(frames, 'tool_result');
  assert.deepEqual([refused.toolCallId, refused.isError], ['c-2', true]);
  assert.match(refused.content, /ask one question at a time/);
  const card = dataOf(frames, 'user_input_required')[0];
  const cont = await server.answer({ sessionId: 's6', requestId: card.id, selections: ['safe'] });
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  assert.deepEqual(
    toolResultsOf(mock.prompts[1]!).map((r) => [r.toolCallId, r.output.type]),
    [
      ['c-1', 'text'],
      ['c-2', 'error-text'],
    ],
  );
});

test('a question that expires is closed with the expired ToolResult; the run ends and the next message goes on from it', async (t) => {
  const store = await openStore('memory');
  const mock = mockModel([{ toolCalls: [askSingle('c-exp')] }, { text: 'starting over' }]);
  const server = await startAiServer(store, { model: mock.model }, { ttlMs: 40, expiryTimers: true });
  t.after(async () => (await server.close(), await store.close()));
  const card = dataOf(await server.chat('s7', 'go'), 'user_input_required')[0];
  await new Promise((r) => setTimeout(r, 120));
  assert.equal((await server.pending('s7')).pending.status, 'expired');
  const closing = '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}';
  const run = await server.runtime.getRun('s7');
  assert.equal(run?.status, 'idle');
  assert.equal((await server.answer({ sessionId: 's7', requestId: card.id, selections: ['safe'] })).status, 410);
  const frames = await server.chat('s7', 'again');
  assert.deepEqual(dataOf(frames, 'done'), [{ reason: 'completed' }]);
  assert.deepEqual(toolResultsOf(mock.prompts[1]!)[0]!.output, { type: 'text', value: closing });
  assert.equal(mock.prompts.length, 2, 'no model call while the card was open or when it expired');
});

test('fromLoopTools: the plugin loop tools run per session, their failures read as errors by the model', async (t) => {
  const store = await openStore('memory');
  const seen: string[] = [];
  const tools = fromLoopTools([
    {
      name: 'echo',
      description: 'Echo',
      parameters: { type: 'object', properties: { say: { type: 'string' } }, required: ['say'] },
      run: (args, ctx) => (seen.push(ctx.sessionId), `said ${String(args.say)}`),
    },
    { name: 'refuse', description: 'Refuse', parameters: { type: 'object' }, run: () => ({ content: 'not allowed', isError: true }) },
    {
      name: 'crash',
      description: 'Crash',
      parameters: { type: 'object' },
      run: () => {
        throw new Error('disk full');
      },
    },
  ]);
  const mock = mockModel([
    {
      toolCalls: [
        { id: 'c-e', name: 'echo', arguments: { say: 'hi' } },
        { id: 'c-r', name: 'refuse', arguments: {} },
        { id: 'c-c', name: 'crash', arguments: {} },
      ],
    },
    { text: 'noted' },
  ]);
  const server = await startAiServer(store, { model: mock.model, tools });
  t.after(async () => (await server.close(), await store.close()));
  const frames = await server.chat('s8', 'go');
  assert.deepEqual(seen, ['s8']);
  assert.deepEqual(
    dataOf(frames, 'tool_result').map((r) => [r.toolCallId, r.content, r.isError]),
    [
      ['c-e', 'said hi', false],
      ['c-r', 'not allowed', true],
      ['c-c', 'Error: crash failed: disk full', true],
    ],
  );
  assert.deepEqual(
    toolResultsOf(mock.prompts[1]!).map((r) => r.output),
    [
      { type: 'text', value: 'said hi' },
      { type: 'error-text', value: 'not allowed' },
      { type: 'error-text', value: 'Error: crash failed: disk full' },
    ],
  );
});
