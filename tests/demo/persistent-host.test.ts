/**
 * The loop as RunHost, called directly the way the plugin's routes call it: resume and closed are
 * idempotent by tool_call_id, and a resume that arrives after the session moved on never runs the model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerToolResultText } from '../../plugin/contract/tool-result.js';
import type { InteractionRecord } from '../../plugin/store/types.js';
import { first, postStream } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';
import { recordingSink } from '../helpers/recording-sink.js';

const ANSWER = { selections: ['safe'], customInput: '', cancelled: false };

async function pausedSession(sessionId: string, turns: Parameters<typeof startHarness>[0] = {}) {
  const h = await startHarness({ ...turns, turns: [{ toolCalls: [askSingle(`call_${sessionId}`)] }, ...(turns.turns ?? [])] });
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId, message: 'start' }), 'user_input_required');
  const claimed = await h.store.claim(ask.id, { status: 'answered', at: Date.now(), answer: ANSWER });
  assert.ok(claimed.ok);
  return { h, record: (claimed as { record: InteractionRecord }).record };
}

test('isResumable is true only for the request the stored run is paused on', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_r')] }] });
  t.after(() => h.close());
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-res', message: 'go' }), 'user_input_required');
  const record = (await h.store.get(ask.id))!;
  assert.equal(await h.demo.loop.isResumable(record), true);
  assert.equal(await h.demo.loop.isResumable({ ...record, requestId: 'ask_AAAAAAAAAAAAAAAAAAAAAA' }), false);
  assert.equal(await h.demo.loop.isResumable({ ...record, sessionId: 'other' }), false);
});

test('resume delivered twice writes one ToolResult and calls the model once', async (t) => {
  const { h, record } = await pausedSession('s-twice', { turns: [{ text: 'continued' }] });
  t.after(() => h.close());
  const content = answerToolResultText(ANSWER);
  const one = recordingSink();
  await h.demo.loop.resume({ record, answer: ANSWER, toolResultContent: content, sse: one });
  assert.deepEqual(one.events.at(-1)!.data, { reason: 'completed' });
  const two = recordingSink();
  await h.demo.loop.resume({ record, answer: ANSWER, toolResultContent: content, sse: two });
  assert.equal(two.events.find((e) => e.event === 'error')?.data.code, 'session_busy');
  assert.equal(h.model.requests.length, 2, 'one call to ask, one after the answer');
  const tools = (await h.demo.loop.getRun('s-twice'))!.messages.filter((m) => m.role === 'tool');
  assert.equal(tools.length, 1);
});

test('a resume that lands after a new message already rolled the answer forward does not run again', async (t) => {
  const { h, record } = await pausedSession('s-late', { turns: [{ text: 'answered your new message' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-late', message: 'new message' });
  assert.equal(first(chat, 'tool_result').content, answerToolResultText(ANSWER));
  const late = recordingSink();
  await h.demo.loop.resume({ record, answer: ANSWER, toolResultContent: answerToolResultText(ANSWER), sse: late });
  assert.equal(late.events.find((e) => e.event === 'error')?.data.code, 'session_busy');
  assert.deepEqual(late.events.at(-1)!.data, { reason: 'error' });
  assert.equal(h.model.requests.length, 2);
  const sent = h.model.requests[1]!.messages;
  assert.equal(sent.filter((m) => m.role === 'tool').length, 1);
});

test('closed writes the reason ToolResult once, and is a no-op for a call the run does not know', async (t) => {
  const { h, record } = await pausedSession('s-closed');
  t.after(() => h.close());
  const content = '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}';
  await h.demo.loop.closed({ record, toolResultContent: content });
  await h.demo.loop.closed({ record, toolResultContent: content });
  const run = (await h.demo.loop.getRun('s-closed'))!;
  assert.equal(run.status, 'idle');
  assert.deepEqual(
    run.messages.filter((m) => m.role === 'tool').map((m) => m.content),
    [content],
  );
  await h.demo.loop.closed({ record: { ...record, toolCallId: 'call_unknown' }, toolResultContent: content });
  assert.equal((await h.demo.loop.getRun('s-closed'))!.messages.length, run.messages.length);
  assert.equal((await h.store.get(record.requestId))?.toolResultWritten, true);
});

test('resume for a run this store does not have answers not_resumable instead of pretending', async (t) => {
  const { h, record } = await pausedSession('s-lost');
  t.after(() => h.close());
  await h.store.deleteState('run:s-lost');
  const sse = recordingSink();
  await h.demo.loop.resume({ record, answer: ANSWER, toolResultContent: answerToolResultText(ANSWER), sse });
  assert.equal(sse.events.find((e) => e.event === 'error')?.data.code, 'not_resumable');
  assert.equal(h.model.requests.length, 1);
});
