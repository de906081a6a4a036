/**
 * The loop on the OpenAI Responses API (ASK_USER_RUNTIME=responses), through the real `openai` client
 * against the scripted model's Responses endpoint: the run keeps its own history and sends it as input
 * items every call (never previous_response_id), ask_user goes out as a strict flat function tool, the
 * answer goes back as a function_call_output with the call's own call_id, exactly once; and the wire
 * quirks a real endpoint has do not crash, hang, or leave a call without its result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerBody, all, first, getJson, postStream, shape } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';
import type { ChatRequestBody } from '../helpers/scripted-model.js';

/** What the endpoint received as input items (the scripted model keeps the raw request fields). */
const inputOf = (body: ChatRequestBody) => body.input as Array<Record<string, unknown>>;

test('ask, answer, resume on the Responses API: input items carry the call and its output with one call_id', async (t) => {
  const h = await startHarness({
    runtime: 'responses',
    turns: [{ text: 'One question.', toolCalls: [askSingle('call_r1')] }, { text: 'Done.' }],
  });
  t.after(() => h.close());
  assert.equal((await getJson(`${h.url}/api/health`)).body.runtime, 'responses');
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-resp', message: 'start' });
  assert.deepEqual(shape(chat), ['message_delta', 'user_input_required', 'done']);
  const ask = first(chat, 'user_input_required');
  const firstCall = h.model.requests[0]!;
  assert.equal(firstCall.api, 'responses');
  assert.equal(firstCall.previous_response_id, undefined, 'the run sends its own history');
  const tool = (firstCall.tools ?? []).find((x) => x.function.name === 'ask_user') as { strict?: boolean; function: { parameters: any } };
  assert.equal(tool.strict, true, 'ask_user is a strict function tool');
  assert.equal(tool.function.parameters.additionalProperties, false);

  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-resp', ask.id, ['safe']));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  const exact = '{"selections":["safe"],"customInput":"","cancelled":false}';
  const input = inputOf(h.model.requests[1]!);
  assert.deepEqual(input.slice(-3), [
    { role: 'assistant', content: 'One question.' },
    { type: 'function_call', call_id: 'call_r1', name: 'ask_user', arguments: JSON.stringify(askSingle('call_r1').arguments) },
    { type: 'function_call_output', call_id: 'call_r1', output: exact },
  ]);
  assert.equal(h.model.requests.length, 2);
});

test('arguments in one-character pieces, split inside a surrogate pair and in Chinese text, arrive whole', async (t) => {
  const args = JSON.stringify({ title: '发布 🚀 哪天？', mode: 'text' });
  const units = args.split(''); // UTF-16 units: the rocket is split between its two halves
  const raw = [
    { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'function_call', id: 'fc_1', call_id: 'call_utf', name: 'ask_user', arguments: '' },
    },
    ...units.map((delta) => ({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta })),
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: { type: 'function_call', id: 'fc_1', call_id: 'call_utf', name: 'ask_user', arguments: args },
    },
    {
      type: 'response.completed',
      response: {
        id: 'resp_1',
        status: 'completed',
        output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_utf', name: 'ask_user', arguments: args }],
      },
    },
  ];
  const h = await startHarness({ runtime: 'responses', turns: [{ raw }] });
  t.after(() => h.close());
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-utf', message: 'go' }), 'user_input_required');
  assert.equal(ask.title, '发布 🚀 哪天？');
});

test('a whole call in one delta, and two parallel calls (ask_user and a tool) interleaved: each gets exactly one result', async (t) => {
  const h = await startHarness({
    runtime: 'responses',
    turns: [
      {
        toolCalls: [{ id: 'call_tool', name: 'list_test_suites', arguments: {} }, askSingle('call_par')],
        interleave: true,
        chunkSize: 2,
      },
      { toolCalls: [askSingle('call_whole')], chunkSize: 100_000 },
      { text: 'all done' },
    ],
  });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-par', message: 'go' });
  assert.deepEqual(
    all(chat, 'tool_result').map((r: any) => r.toolCallId),
    ['call_tool'],
    'the ordinary tool ran before the card',
  );
  const ask = first(chat, 'user_input_required');
  assert.equal(ask.toolCallId, 'call_par');
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-par', ask.id, ['safe']));
  const second = first(cont, 'user_input_required');
  assert.equal(second.toolCallId, 'call_whole', 'a call sent whole in one delta is read');
  const outputs = inputOf(h.model.requests[1]!).filter((i) => i.type === 'function_call_output');
  assert.deepEqual(
    outputs.map((o) => o.call_id),
    ['call_tool', 'call_par'],
    'every call of the turn has exactly one output before the next call',
  );
});

test('a stream cut before response.completed is a model_error: nothing of it is run, asked or stored', async (t) => {
  const half = [
    { type: 'response.created', response: { id: 'resp_2', status: 'in_progress', output: [] } },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'function_call', id: 'fc_2', call_id: 'call_half', name: 'ask_user', arguments: '' },
    },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_2', output_index: 0, delta: '{"title":"Half' },
  ];
  const h = await startHarness({
    runtime: 'responses',
    turns: [{ toolCalls: [askSingle('call_cut')], noDone: true }, { raw: half }, { text: 'fine again' }],
  });
  t.after(() => h.close());
  for (const message of ['go', 'again']) {
    const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-cut', message });
    assert.equal(first(chat, 'error').code, 'model_error');
    assert.deepEqual(first(chat, 'done'), { reason: 'error' });
    assert.equal(first(chat, 'user_input_required'), undefined, 'a call of an unfinished reply is never asked');
  }
  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-cut', message: 'third' });
  assert.deepEqual(first(next, 'done'), { reason: 'completed' }, 'the session stays usable');
  assert.equal(
    inputOf(h.model.requests[2]!).filter((item) => item.call_id === 'call_cut' || item.call_id === 'call_half').length,
    0,
    'nothing of the cut replies was stored',
  );
});
