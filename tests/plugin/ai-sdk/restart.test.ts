/**
 * Exact resume across a restart and across a crash, on a SQLite file: a new kit on the same store
 * continues the paused run from its stored ModelMessage[]; an answer claimed by a process that died
 * before writing its ToolResult is rolled forward and continued once by a sweep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../plugin/index.js';
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { mockModel, toolResultsOf } from './mock-model.js';
import { dataOf, startAiServer } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('restart: a new kit on the same SQLite store resumes the paused run exactly', async (t) => {
  const dir = await makeTempDir();
  t.after(() => dir.remove());
  const url = `sqlite://${dir.file('ask.db')}`;

  const storeA = await openStore(url);
  const before = mockModel([{ text: 'First a question.', toolCalls: [askSingle('c-r')] }]);
  const a = await startAiServer(storeA, { model: before.model, system: 'Be brief.' });
  const card = dataOf(await a.chat('s-r', 'plan it'), 'user_input_required')[0];
  await a.close();
  await storeA.close();

  const storeB = await openStore(url);
  const after = mockModel([{ text: 'Resumed.' }]);
  const b = await startAiServer(storeB, { model: after.model, system: 'Be brief.' });
  t.after(async () => (await b.close(), await storeB.close()));
  const pending = (await b.pending('s-r')).pending;
  assert.equal(pending.id, card.id);
  assert.equal(pending.resumable, true, 'the new instance can continue the stored run');

  const cont = await b.answer({ sessionId: 's-r', requestId: card.id, selections: ['implement'] });
  assert.equal(cont.status, 200);
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  assert.equal(after.prompts.length, 1);
  const prompt = after.prompts[0]!;
  assert.deepEqual(
    prompt.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool'],
    'the original history, the instructions, and the answer — nothing re-run',
  );
  const [result] = toolResultsOf(prompt);
  assert.deepEqual([result?.toolCallId, result?.toolName], ['c-r', 'ask_user']);
  assert.deepEqual(result?.output, { type: 'text', value: '{"selections":["implement"],"customInput":"","cancelled":false}' });
  const assistant = prompt[2]!;
  assert.ok(assistant.role === 'assistant' && Array.isArray(assistant.content));
  assert.deepEqual(
    assistant.content.map((p) => p.type),
    ['text', 'tool-call'],
  );
  assert.equal((await b.answer({ sessionId: 's-r', requestId: card.id })).status, 409);
});

test('crash after the claim: a sweep on another instance writes the ToolResult and continues the run once', async (t) => {
  const dir = await makeTempDir();
  t.after(() => dir.remove());
  const store = await openStore(`sqlite://${dir.file('crash.db')}`);
  t.after(() => store.close());
  const dying = mockModel([{ toolCalls: [askSingle('c-c')] }]);
  const a = await startAiServer(store, { model: dying.model });
  const card = dataOf(await a.chat('s-c', 'go'), 'user_input_required')[0];
  // What the continue route does before it hands over to the runtime; the process then dies.
  const answer = { selections: ['safe'], customInput: 'x', cancelled: false };
  assert.equal((await store.claim(card.id, { status: 'answered', at: Date.now(), answer })).ok, true);
  await a.close();

  const next = mockModel([{ text: 'On it.' }]);
  const b = await startAiServer(store, { model: next.model, resumeStalledAfterMs: 1, resumeWaitMs: 0 });
  t.after(() => b.close());
  await sleep(5);
  const report = await b.runtime.sweep();
  assert.deepEqual({ rolledForward: report.rolledForward, resumed: report.resumed }, { rolledForward: 1, resumed: 1 });
  assert.equal(next.prompts.length, 1, 'the model got the answer exactly once');
  assert.deepEqual(toolResultsOf(next.prompts[0]!)[0]!.output, {
    type: 'text',
    value: '{"selections":["safe"],"customInput":"x","cancelled":false}',
  });
  assert.deepEqual(
    b.audit.entries.filter((e) => e.event === 'answered').map((e) => e.recovered),
    [true],
  );
  const run = await b.runtime.getRun('s-c');
  assert.equal(run?.status, 'idle');
  assert.equal(run?.messages.at(-1)?.role, 'assistant');
  assert.deepEqual(await new PausedIndex(store, 'aisdk:paused:').list(), [], 'nothing left for a sweep');
  assert.equal((await b.runtime.sweep()).resumed, 0);
  assert.equal(next.prompts.length, 1);
});

test('a run owing an accepted answer (its process died before the model call) is continued by a sweep, once', async (t) => {
  const store = await openStore('memory');
  t.after(() => store.close());
  const first = mockModel([{ toolCalls: [askSingle('c-o')] }, { fail: new Error('connection reset') }]);
  const a = await startAiServer(store, { model: first.model });
  const card = dataOf(await a.chat('s-o', 'go'), 'user_input_required')[0];
  const claimed = await store.claim(card.id, {
    status: 'answered',
    at: Date.now(),
    answer: { selections: ['safe'], customInput: '', cancelled: false },
  });
  assert.ok(claimed.ok);
  // The continue wrote the ToolResult, then its process died before the model call: the run owes it.
  const { writeAskResult } = await import('../../../plugin/ai-sdk/result-writer.js');
  const { AiRunStates } = await import('../../../plugin/ai-sdk/ai-run-state.js');
  await writeAskResult(new AiRunStates(store), claimed.record!, '{"selections":["safe"],"customInput":"","cancelled":false}');
  await store.markToolResultWritten(card.id);
  await a.close();
  const owed = await a.runtime.getRun('s-o');
  assert.equal(owed?.status, 'idle');
  assert.equal(owed?.owed?.toolCallId, 'c-o');

  const next = mockModel([{ text: 'Continuing.' }]);
  const b = await startAiServer(store, { model: next.model, resumeStalledAfterMs: 1, resumeWaitMs: 0 });
  t.after(() => b.close());
  await sleep(5);
  assert.equal((await b.runtime.sweep()).resumed, 1);
  assert.equal(next.prompts.length, 1);
  assert.equal((await b.runtime.getRun('s-o'))?.owed, undefined);
  assert.equal((await b.runtime.sweep()).resumed, 0);
});

test('two live instances on one store: duplicate continues sent to both are consumed once, the model called once', async (t) => {
  const dir = await makeTempDir();
  t.after(() => dir.remove());
  const url = `sqlite://${dir.file('shared.db')}`;
  const storeA = await openStore(url);
  const storeB = await openStore(url);
  const modelA = mockModel([{ toolCalls: [askSingle('c-s')] }], { text: 'from A' });
  const modelB = mockModel([], { text: 'from B' });
  const a = await startAiServer(storeA, { model: modelA.model });
  const b = await startAiServer(storeB, { model: modelB.model });
  t.after(async () => (await a.close(), await b.close(), await storeA.close(), await storeB.close()));
  const card = dataOf(await a.chat('s-s', 'go'), 'user_input_required')[0];
  assert.equal((await b.pending('s-s')).pending.resumable, true, 'the other instance can continue it');
  const body = { sessionId: 's-s', requestId: card.id, selections: ['safe'] };
  const replies = await Promise.all([a.answer(body), b.answer(body), a.answer(body), b.answer(body)]);
  assert.deepEqual(replies.map((r) => r.status).sort(), [200, 409, 409, 409]);
  assert.equal(modelA.prompts.length + modelB.prompts.length, 2, 'one model call after the answer, on whichever instance took it');
  const winner = replies.find((r) => r.status === 200)!;
  assert.deepEqual(dataOf(winner.frames, 'done'), [{ reason: 'completed' }]);
  const run = await b.runtime.getRun('s-s');
  assert.equal(run?.messages.filter((m) => m.role === 'tool').length, 1, 'one ToolResult');
});

test('run state in memory (stateStore): after a restart the card survives but says it cannot resume, and continue is refused', async (t) => {
  const dir = await makeTempDir();
  t.after(() => dir.remove());
  const url = `sqlite://${dir.file('mem.db')}`;
  const storeA = await openStore(url);
  const statesA = await openStore('memory');
  const a = await startAiServer(storeA, { model: mockModel([{ toolCalls: [askSingle('c-m')] }]).model, stateStore: statesA });
  const card = dataOf(await a.chat('s-m', 'go'), 'user_input_required')[0];
  assert.equal((await a.pending('s-m')).pending.resumable, true);
  await a.close();
  await storeA.close();
  const storeB = await openStore(url);
  const statesB = await openStore('memory');
  const b = await startAiServer(storeB, { model: mockModel().model, stateStore: statesB });
  t.after(async () => (await b.close(), await storeB.close(), await statesB.close(), await statesA.close()));
  assert.equal((await b.pending('s-m')).pending.resumable, false);
  const refused = await b.answer({ sessionId: 's-m', requestId: card.id, selections: ['safe'] });
  assert.deepEqual([refused.status, refused.json.error.code], [409, 'not_resumable']);
});
