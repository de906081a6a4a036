/**
 * Exact resume across kill -9 on a SQLite file: the demo server runs as a child process on the test's
 * scripted model; after the card it is killed, started again on the same file, and the continue makes
 * the model receive the original history plus the ToolResult — exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startRestartableServer } from '../helpers/restartable-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { answerBody, first, getJson, postStream, shape, text } from './sse-client.js';
import { askSingle } from './harness.js';

test('kill -9 after the card, restart on the same SQLite file, continue resumes exactly', async (t) => {
  const dir = await makeTempDir('ask-user-restart-');
  const model = await startScriptedModel({
    turns: [{ text: 'One question first.', toolCalls: [askSingle('call_restart')] }, { text: 'Resumed after restart.' }],
  });
  t.after(async () => {
    await model.close();
    await dir.remove();
  });
  const server = await startRestartableServer({
    store: `sqlite://${dir.file('ask.db')}`,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test', ASK_USER_TRACE: '1' },
  });
  t.after(() => server.stop());

  const chat = await postStream(`${server.url}/api/chat`, { sessionId: 's-restart', message: 'start the task' });
  const ask = first(chat, 'user_input_required');
  assert.equal(ask.resumable, true);
  await server.kill();

  await server.restart();
  const pending = await getJson(`${server.url}/api/interactions/pending?sessionId=s-restart`);
  assert.equal(pending.body.pending.id, ask.id, 'the card survived the crash');
  assert.equal(pending.body.pending.resumable, true, 'and the run behind it is resumable from the file');

  const cont = await postStream(`${server.url}/api/chat/continue`, answerBody('s-restart', ask.id, ['safe'], 'after restart'));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  assert.equal(text(cont), 'Resumed after restart.');

  assert.equal(model.requests.length, 2, 'no re-run from the start: one call before, one after');
  const [before, after] = model.requests;
  assert.deepEqual(after!.messages.slice(0, before!.messages.length), before!.messages);
  const rest = after!.messages.slice(before!.messages.length);
  assert.equal(rest.length, 2);
  assert.equal(rest[0]!.role, 'assistant');
  assert.deepEqual(
    (rest[0]!.tool_calls as any[]).map((c) => c.id),
    ['call_restart'],
  );
  assert.deepEqual(rest[1], {
    role: 'tool',
    tool_call_id: 'call_restart',
    content: '{"selections":["safe"],"customInput":"after restart","cancelled":false}',
  });

  const trace = await getJson(`${server.url}/api/trace?sessionId=s-restart`);
  assert.ok(trace.body.lines.some((l: any) => l.source === 'audit' && JSON.parse(l.text).event === 'answered'));
  assert.ok(
    trace.body.lines.some((l: any) => l.source === 'sse' && l.stream === 'continue' && /^(id: .+\n)?event: tool_result\n/.test(l.text)),
  );
});

test('a crash between the claim and the ToolResult write is rolled forward at startup, once', async (t) => {
  const dir = await makeTempDir('ask-user-rollforward-');
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_crash')] }, { text: 'Picked up your answer.' }] });
  t.after(async () => {
    await model.close();
    await dir.remove();
  });
  const server = await startRestartableServer({
    store: `sqlite://${dir.file('ask.db')}`,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test' },
  });
  t.after(() => server.stop());
  const ask = first(await postStream(`${server.url}/api/chat`, { sessionId: 's-crash', message: 'go' }), 'user_input_required');
  await server.kill();

  // What the continue route had done when the process died: the claim, nothing after it.
  const { openStore } = await import('../../plugin/store/index.js');
  const store = await openStore(server.store);
  const answer = { selections: ['implement'], customInput: '', cancelled: false };
  assert.equal((await store.claim(ask.id, { status: 'answered', at: Date.now(), answer })).ok, true);
  await store.close();

  await server.restart();
  // The sweep runs after the server listens, so its line comes a moment later.
  await server.current.waitForOutput(/startup sweep: 1 paused run\(s\) checked, 1 rolled forward/);
  const session = await getJson(`${server.url}/api/session?sessionId=s-crash`);
  assert.equal(session.body.status, 'idle');
  const exact = '{"selections":["implement"],"customInput":"","cancelled":false}';
  assert.deepEqual(
    session.body.items.filter((i: any) => i.role === 'tool').map((i: any) => i.text),
    [exact],
  );

  await postStream(`${server.url}/api/chat`, { sessionId: 's-crash', message: 'what now?' });
  assert.equal(model.requests.length, 2);
  const sent = model.requests[1]!.messages;
  assert.deepEqual(
    sent.filter((m) => m.role === 'tool').map((m) => m.content),
    [exact],
  );
});

test('a question that expired while the server was down is closed by the startup sweep', async (t) => {
  const dir = await makeTempDir('ask-user-expired-down-');
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_down')] }, { text: 'fresh' }] });
  t.after(async () => {
    await model.close();
    await dir.remove();
  });
  // Long enough that the first server, however loaded the machine, is killed before its own timer closes it.
  const server = await startRestartableServer({
    store: `sqlite://${dir.file('ask.db')}`,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'm', ASK_USER_TTL_MS: '4000' },
  });
  t.after(() => server.stop());
  const ask = first(await postStream(`${server.url}/api/chat`, { sessionId: 's-down', message: 'go' }), 'user_input_required');
  await server.kill();
  // Past expiresAt while nothing runs: no timer of the dead process can close it.
  while (Date.parse(ask.expiresAt) >= Date.now()) await new Promise((r) => setTimeout(r, 50));

  await server.restart();
  await server.current.waitForOutput(/startup sweep: 1 paused run\(s\) checked, 0 rolled forward, 1 expired/);
  const session = await getJson(`${server.url}/api/session?sessionId=s-down`);
  assert.equal(session.body.status, 'idle');
  assert.deepEqual(
    session.body.items.filter((i: any) => i.role === 'tool').map((i: any) => i.text),
    ['{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}'],
  );
  const pending = await getJson(`${server.url}/api/interactions/pending?sessionId=s-down`);
  assert.equal(pending.body.pending?.status, 'expired', 'the page still gets the timeout receipt');
  const cont = await postStream(`${server.url}/api/chat/continue`, answerBody('s-down', ask.id, ['safe']));
  assert.equal(cont.status, 410);
});
