/**
 * Two demo server processes on one redis-server: the card is asked on one instance, answered on the
 * other, and the other continues the run exactly (the run state lives in Redis beside the card).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedisServer } from '../helpers/redis-server.js';
import { startDemoServer } from '../helpers/demo-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { answerBody, first, getJson, postStream, shape, text } from './sse-client.js';
import { askSingle } from './harness.js';

test('SSE from instance A, continue on instance B, one model call with the exact ToolResult', async (t) => {
  const redis = await startRedisServer();
  const model = await startScriptedModel({
    turns: [{ text: 'Asking on A.', toolCalls: [askSingle('call_ab')] }, { text: 'Continued on B.' }, { text: 'B again.' }],
  });
  t.after(async () => {
    await model.close();
    await redis.stop();
  });
  const env = { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test', ASK_USER_STORE: redis.url };
  const [a, b] = await Promise.all([startDemoServer({ env }), startDemoServer({ env })]);
  t.after(async () => {
    await a.stop();
    await b.stop();
  });
  assert.notEqual(a.url, b.url);

  const chat = await postStream(`${a.url}/api/chat`, { sessionId: 's-ab', message: 'start on A' });
  const ask = first(chat, 'user_input_required');
  const onB = await getJson(`${b.url}/api/interactions/pending?sessionId=s-ab`);
  assert.equal(onB.body.pending.id, ask.id);
  assert.equal(onB.body.pending.resumable, true, 'B can resume what A paused');

  const cont = await postStream(`${b.url}/api/chat/continue`, answerBody('s-ab', ask.id, ['implement']));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  assert.equal(text(cont), 'Continued on B.');
  const [before, after] = model.requests;
  assert.deepEqual(after!.messages.slice(0, before!.messages.length), before!.messages);
  assert.deepEqual(after!.messages.at(-1), {
    role: 'tool',
    tool_call_id: 'call_ab',
    content: '{"selections":["implement"],"customInput":"","cancelled":false}',
  });

  // A late duplicate on A is refused: the request was consumed once, across instances.
  const dup = await postStream(`${a.url}/api/chat/continue`, answerBody('s-ab', ask.id, ['safe']));
  assert.equal(dup.status, 409);
  assert.equal(dup.json.error.code, 'already_answered');
  assert.equal(model.requests.length, 2);

  // Both instances see the same history.
  const viewA = await getJson(`${a.url}/api/session?sessionId=s-ab`);
  const viewB = await getJson(`${b.url}/api/session?sessionId=s-ab`);
  assert.deepEqual(viewA.body, viewB.body);
  assert.equal(viewA.body.items.at(-1).text, 'Continued on B.');
});
