/**
 * Runs in memory (ASK_USER_HOST=in-process): the loop keeps its run state in a memory store.
 * It continues while the process lives; after a restart the card survives but says `resumable: false`,
 * and continue answers 409 `not_resumable` instead of pretending.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unansweredToolCalls } from '../../plugin/loop/run-state.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startRestartableServer } from '../helpers/restartable-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { answerBody, first, getJson, postStream, shape, text } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

test('in-process host: a live wait continues with the exact ToolResult', async (t) => {
  const h = await startHarness({
    hostMode: 'in-process',
    turns: [{ text: 'Q?', toolCalls: [askSingle('call_ip')] }, { text: 'continued in memory' }],
  });
  t.after(() => h.close());
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-ip', message: 'go' }), 'user_input_required');
  assert.equal((await getJson(`${h.url}/api/interactions/pending?sessionId=s-ip`)).body.pending.resumable, true);
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-ip', ask.id, ['safe']));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  assert.equal(text(cont), 'continued in memory');
  const [before, after] = h.model.requests;
  assert.deepEqual(after!.messages.slice(0, before!.messages.length), before!.messages);
  assert.deepEqual(after!.messages.at(-1), {
    role: 'tool',
    tool_call_id: 'call_ip',
    content: '{"selections":["safe"],"customInput":"","cancelled":false}',
  });
  assert.equal(h.model.requests.length, 2);
  assert.equal((await h.store.get(ask.id))?.toolResultWritten, true);
});

test('in-process host: cancel stops without a model call; a new message supersedes with a valid history', async (t) => {
  const h = await startHarness({
    hostMode: 'in-process',
    turns: [{ toolCalls: [askSingle('call_ipc')] }, { toolCalls: [askSingle('call_ips')] }, { text: 'new topic' }],
  });
  t.after(() => h.close());
  const a = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-ipc', message: 'one' }), 'user_input_required');
  const cancel = await postStream(`${h.url}/api/chat/continue`, answerBody('s-ipc', a.id, [], '', true));
  assert.deepEqual(first(cancel, 'done'), { reason: 'cancelled' });
  assert.equal(h.model.requests.length, 1);

  first(await postStream(`${h.url}/api/chat`, { sessionId: 's-ipc', message: 'two' }), 'user_input_required');
  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-ipc', message: 'three' });
  assert.equal(first(next, 'interaction_resolved').status, 'superseded');
  const sent = h.model.requests[2]!.messages;
  assert.deepEqual(unansweredToolCalls(sent as any), []);
  assert.deepEqual(
    sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, JSON.parse(String(m.content)).reason ?? 'cancel']),
    [
      ['call_ipc', 'cancel'],
      ['call_ips', 'superseded'],
    ],
  );
});

test('in-process host: after kill -9 the card survives on SQLite but is not resumable', async (t) => {
  const dir = await makeTempDir('ask-user-inproc-');
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_gone')] }] });
  t.after(async () => {
    await model.close();
    await dir.remove();
  });
  const server = await startRestartableServer({
    store: `sqlite://${dir.file('ask.db')}`,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'm', ASK_USER_HOST: 'in-process' },
  });
  t.after(() => server.stop());
  const ask = first(await postStream(`${server.url}/api/chat`, { sessionId: 's-gone', message: 'go' }), 'user_input_required');
  assert.equal((await getJson(`${server.url}/api/interactions/pending?sessionId=s-gone`)).body.pending.resumable, true);
  await server.kill();

  await server.restart();
  const pending = await getJson(`${server.url}/api/interactions/pending?sessionId=s-gone`);
  assert.equal(pending.body.pending.id, ask.id);
  assert.equal(pending.body.pending.status, 'pending');
  assert.equal(pending.body.pending.resumable, false);
  const cont = await postStream(`${server.url}/api/chat/continue`, answerBody('s-gone', ask.id, ['safe']));
  assert.equal(cont.status, 409);
  assert.equal(cont.json.error.code, 'not_resumable');
  assert.equal(model.requests.length, 1, 'nothing re-ran the task');
});
