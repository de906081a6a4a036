/**
 * docs/protocol.md §9.1 through the whole loop (demo app, real `openai` client, scripted model): the
 * model's bounds reach the card as given, an answer out of bounds is refused with 422 naming the field and
 * leaves the question open, an answer within them reaches the model as the plain §4 ToolResult.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerBody, all, first, getJson, postStream, shape } from './sse-client.js';
import { startHarness } from './harness.js';

const BOUNDS = { min: 1, max: 5, step: 1, default: '3', placeholder: '1–5' };
const askNumber = (id: string, extra: Record<string, unknown> = BOUNDS) => ({
  id,
  name: 'ask_user',
  arguments: { title: 'How many replicas?', mode: 'number', ...extra },
});

test('a number question with max 5 refuses 7 with 422 (field customInput) and accepts 5', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askNumber('call_n')] }, { text: 'Five it is.' }] });
  t.after(() => h.close());

  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-bounds', message: 'scale it' });
  assert.deepEqual(shape(chat), ['user_input_required', 'done']);
  const ask = first(chat, 'user_input_required');
  for (const [k, v] of Object.entries(BOUNDS)) assert.deepEqual(ask[k], v, `${k} reaches the card unchanged`);
  assert.equal(typeof ask.max, 'number', 'numbers stay JSON numbers');

  const pending = await getJson(`${h.url}/api/interactions/pending?sessionId=s-bounds`);
  assert.equal(pending.body.pending.max, 5);
  assert.equal(pending.body.pending.default, '3');

  for (const bad of ['7', '0', '2.5']) {
    const refused = await postStream(`${h.url}/api/chat/continue`, answerBody('s-bounds', ask.id, [], bad));
    assert.equal(refused.status, 422, bad);
    assert.equal(refused.json.error.code, 'invalid_answer');
    assert.equal(refused.json.error.field, 'customInput');
  }
  assert.equal(h.model.requests.length, 1, 'a refused answer calls no model');
  assert.equal((await h.store.get(ask.id))?.status, 'pending', 'and consumes nothing');

  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-bounds', ask.id, [], '5'));
  assert.equal(cont.status, 200);
  const exact = '{"selections":[],"customInput":"5","cancelled":false}';
  assert.deepEqual(first(cont, 'tool_result'), { toolCallId: 'call_n', name: 'ask_user', content: exact, isError: false });
  assert.deepEqual(h.model.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_n', content: exact });
});

test('invalid bounds are an is_error ToolResult naming the field; no card is shown and the model tries again', async (t) => {
  const h = await startHarness({
    turns: [{ toolCalls: [askNumber('call_bad', { min: 6, max: 5 })] }, { toolCalls: [askNumber('call_ok')] }],
  });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-bad', message: 'scale it' });
  const results = all(chat, 'tool_result');
  assert.equal(results[0].toolCallId, 'call_bad');
  assert.equal(results[0].isError, true);
  assert.match(results[0].content, /min: min \(6\) is greater than max \(5\)/);
  const asked = all(chat, 'user_input_required');
  assert.deepEqual(
    asked.map((a) => a.toolCallId),
    ['call_ok'],
    'only the corrected call reaches the user',
  );
  assert.deepEqual(h.model.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_bad', content: results[0].content });
});

test('a default never becomes an answer: a new message supersedes the question with the plain superseded ToolResult', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askNumber('call_d')] }, { text: 'Fine.' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-sup', message: 'scale it' });
  const ask = first(chat, 'user_input_required');
  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-sup', message: 'never mind' });
  assert.deepEqual(first(next, 'interaction_resolved').status, 'superseded');
  const closed = '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}';
  assert.equal(first(next, 'tool_result').content, closed);
  assert.ok(h.model.requests[1]!.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_d' && m.content === closed));
  assert.equal((await h.store.get(ask.id))?.resolution?.answer.customInput, '');
});
