/**
 * Supersede, expiry and roll-forward: every way a question can end without the normal continue still
 * leaves a valid history (each assistant tool call has exactly one result) before the model is next called.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unansweredToolCalls } from '../../plugin/loop/run-state.js';
import { answerBody, first, getJson, postStream, shape } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

const toolMessagesFor = (messages: any[], id: string) => messages.filter((m) => m.role === 'tool' && m.tool_call_id === id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a new message supersedes the open card: cancel+reason ToolResult first, then the message runs', async (t) => {
  const h = await startHarness({ turns: [{ text: 'Question:', toolCalls: [askSingle('call_old')] }, { text: 'On to the new topic.' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-sup', message: 'first task' });
  const ask = first(chat, 'user_input_required');

  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-sup', message: 'never mind, other task' });
  assert.equal(next.status, 200);
  assert.deepEqual(shape(next), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  assert.equal(first(next, 'interaction_resolved').status, 'superseded');
  assert.equal(first(next, 'interaction_resolved').requestId, ask.id);
  const closed = '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}';
  assert.equal(first(next, 'tool_result').content, closed);

  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(unansweredToolCalls(sent as any), [], 'every assistant tool call has a result');
  assert.deepEqual(
    sent.slice(-3).map((m) => m.role),
    ['assistant', 'tool', 'user'],
  );
  assert.equal(sent.at(-2)!.content, closed);
  assert.equal(sent.at(-1)!.content, 'never mind, other task');
  assert.equal(toolMessagesFor(sent, 'call_old').length, 1);

  assert.equal((await h.store.get(ask.id))?.status, 'superseded');
  assert.ok(h.audit.some((e) => e.event === 'superseded' && e.requestId === ask.id));
  const late = await postStream(`${h.url}/api/chat/continue`, answerBody('s-sup', ask.id, ['safe']));
  assert.equal(late.status, 409);
  assert.equal(late.json.error.code, 'already_answered');
  assert.equal(h.model.requests.length, 2);
});

test('an expired question gets the expired ToolResult, the run ends, and continue answers 410', async (t) => {
  // Seconds, not 150 ms: on a loaded machine the question must not expire before its pause is saved.
  const h = await startHarness({ ttlMs: 1500, turns: [{ toolCalls: [askSingle('call_exp')] }, { text: 'fresh start' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-exp', message: 'ask me' });
  const ask = first(chat, 'user_input_required');
  // The kit's expiry timer closes it; wait for the run to show it (no timing is asserted, 30 s at most).
  for (const giveUp = Date.now() + 30_000; Date.now() < giveUp && (await h.demo.loop.getRun('s-exp'))?.status === 'paused';)
    await sleep(20);
  const run = await h.demo.loop.getRun('s-exp');
  assert.equal(run?.status, 'idle');
  const expired = '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}';
  assert.deepEqual(
    toolMessagesFor(run!.messages, 'call_exp').map((m) => m.content),
    [expired],
  );
  assert.equal((await h.store.get(ask.id))?.toolResultWritten, true);

  const pending = await getJson(`${h.url}/api/interactions/pending?sessionId=s-exp`);
  assert.equal(pending.body.pending?.status, 'expired', 'an expired card is still shown as a receipt');
  assert.equal(pending.body.pending?.resumable, false);
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-exp', ask.id, ['safe']));
  assert.equal(cont.status, 410);
  assert.equal(h.model.requests.length, 1);

  await postStream(`${h.url}/api/chat`, { sessionId: 's-exp', message: 'again' });
  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(unansweredToolCalls(sent as any), []);
  assert.equal(toolMessagesFor(sent, 'call_exp').length, 1);
});

test('a claim whose ToolResult write never happened is rolled forward on the next message, once', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_rf')] }, { text: 'continuing with your answer and message' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-rf', message: 'start' });
  const ask = first(chat, 'user_input_required');
  // A crash right after the claim: the store says answered, the run still waits, no ToolResult yet.
  const answer = { selections: ['implement'], customInput: 'x', cancelled: false };
  const claimed = await h.store.claim(ask.id, { status: 'answered', at: Date.now(), answer });
  assert.equal(claimed.ok, true);
  assert.equal((await h.demo.loop.getRun('s-rf'))?.status, 'paused');

  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-rf', message: 'and another thing' });
  assert.deepEqual(shape(next), ['tool_result', 'message_delta', 'done']);
  const exact = '{"selections":["implement"],"customInput":"x","cancelled":false}';
  assert.equal(first(next, 'tool_result').content, exact);
  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(
    toolMessagesFor(sent, 'call_rf').map((m) => m.content),
    [exact],
  );
  assert.deepEqual(
    sent.slice(-2).map((m) => m.role),
    ['tool', 'user'],
  );
  assert.equal((await h.store.get(ask.id))?.toolResultWritten, true);

  // Rolling forward again changes nothing.
  assert.equal((await h.demo.loop.rollForward('s-rf')).kind, 'nothing');
  assert.equal(toolMessagesFor((await h.demo.loop.getRun('s-rf'))!.messages, 'call_rf').length, 1);
});

test('the startup sweep rolls forward half-resolved runs and leaves live questions alone', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_s1')] }, { toolCalls: [askSingle('call_s2')] }] });
  t.after(() => h.close());
  const a = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-sw1', message: 'one' }), 'user_input_required');
  const b = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-sw2', message: 'two' }), 'user_input_required');
  await h.store.claim(a.id, { status: 'cancelled', at: Date.now(), answer: { selections: [], customInput: '', cancelled: true } });

  const report = await h.demo.loop.sweep();
  assert.deepEqual(report, { checked: 2, rolledForward: 1, expired: 0, resumed: 0 });
  const one = await h.demo.loop.getRun('s-sw1');
  assert.equal(one?.status, 'idle');
  assert.deepEqual(
    toolMessagesFor(one!.messages, 'call_s1').map((m) => m.content),
    ['{"selections":[],"customInput":"","cancelled":true}'],
  );
  assert.equal((await h.demo.loop.getRun('s-sw2'))?.status, 'paused', 'a live question is not touched');
  assert.equal((await getJson(`${h.url}/api/interactions/pending?sessionId=s-sw2`)).body.pending.id, b.id);

  assert.deepEqual(await h.demo.loop.sweep(), { checked: 1, rolledForward: 0, expired: 0, resumed: 0 });
  assert.equal(toolMessagesFor((await h.demo.loop.getRun('s-sw1'))!.messages, 'call_s1').length, 1);
  assert.equal(h.model.requests.length, 2, 'rolling forward never calls the model');
});
