/**
 * A process that took an answer and died before the model went on (kill -9 after the claim, after the
 * ToolResult write, or as the model request was built) leaves the run stalled on that answer. A sweep on
 * any instance sharing the store continues it — once, under the session lease — so the user's answer is
 * acted on without another message; a cancel is only rolled forward, and a fresh stall is left alone
 * (it may be a continue still in flight elsewhere) but stays listed for the next sweep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createAskUserKit } from '../../../plugin/core/ask-user-kit.js';
import { memoryAuditLogger } from '../../../plugin/core/audit.js';
import { openStore } from '../../../plugin/store/index.js';
import type { PendingStore } from '../../../plugin/store/types.js';
import { agentRuntime, createAgentLoop, type AgentRuntimeOptions } from '../../../plugin/loop/index.js';
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { RunStates } from '../../../plugin/loop/run-state.js';
import { writeAskResult } from '../../../plugin/loop/chat-history.js';
import { answerToolResultText } from '../../../plugin/contract/tool-result.js';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { deliveries } from '../../hardening/helpers/deliveries.js';
import { recordingSink } from '../../helpers/recording-sink.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { allowAnyCaller } from '../../../plugin/core/authorization.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ANSWER = { selections: ['safe'], customInput: 'go', cancelled: false };

function instance(store: PendingStore, model: ScriptedModel, options: Partial<AgentRuntimeOptions> = {}) {
  const audit = memoryAuditLogger();
  const kit = createAskUserKit({
    authorize: allowAnyCaller,
    store,
    logger: audit,
    expiryTimers: false,
    runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm', ...options }),
  });
  const loop = kit.runtime;
  return { loop, kit, audit };
}

/** A run paused on `callId`, its answer claimed by a process that then died (nothing after the claim ran). */
async function pausedThenClaimed(store: PendingStore, model: ScriptedModel, sessionId: string, callId: string, answer = ANSWER) {
  const dying = instance(store, model);
  const sse = recordingSink();
  await dying.loop.chat({ caller: undefined, sessionId, message: 'ask me', sse });
  const ask = sse.events.find((e) => e.event === 'user_input_required')!.data as { id: string };
  const claimed = await store.claim(ask.id, { status: answer.cancelled ? 'cancelled' : 'answered', at: Date.now(), answer });
  assert.equal(claimed.ok, true);
  return { requestId: ask.id, record: claimed.ok ? claimed.record : undefined };
}

async function setup(t: { after(fn: () => Promise<void>): void }, callId: string) {
  const model = await startScriptedModel({
    turns: [{ toolCalls: [askSingle(callId)] }],
    fallback: (body) => ({ text: `continuing with ${String(body.messages.at(-1)?.content)}` }),
  });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  return { model, store };
}

test('died right after the claim: a sweep writes the ToolResult, audits it, and the model goes on once', async (t) => {
  const { model, store } = await setup(t, 'ask-claim');
  const { requestId } = await pausedThenClaimed(store, model, 's-claim', 'ask-claim');
  const next = instance(store, model, { resumeStalledAfterMs: 1, resumeWaitMs: 0 });
  await sleep(5);
  const report = await next.loop.sweep();
  assert.deepEqual({ rolledForward: report.rolledForward, resumed: report.resumed }, { rolledForward: 1, resumed: 1 });
  assert.equal(deliveries(model.requests, 'ask-claim').length, 1, 'the model got the answer exactly once');
  const run = await next.loop.getRun('s-claim');
  assert.equal(run?.messages.at(-1)?.role, 'assistant', 'the continuation is in the history');
  assert.match(String(run?.messages.at(-1)?.content), /"customInput":"go"/);
  assert.deepEqual(await new PausedIndex(store).list(), [], 'nothing left for a sweep');
  assert.deepEqual(
    next.audit.entries.filter((e) => e.event === 'answered').map((e) => [e.requestId, e.recovered]),
    [[requestId, true]],
  );
  assert.equal((await next.loop.sweep()).resumed, 0, 'a second sweep finds nothing to continue');
  assert.equal(deliveries(model.requests, 'ask-claim').length, 1);
});

test('died after the ToolResult write: the sweep continues the run without writing it again', async (t) => {
  const { model, store } = await setup(t, 'ask-written');
  const { record } = await pausedThenClaimed(store, model, 's-written', 'ask-written');
  await writeAskResult(new RunStates(store), record!, answerToolResultText(ANSWER));
  const next = instance(store, model, { resumeStalledAfterMs: 1, resumeWaitMs: 0 });
  await sleep(5);
  const report = await next.loop.sweep();
  assert.equal(report.resumed, 1);
  assert.equal(deliveries(model.requests, 'ask-written').length, 1);
  const tools = (await next.loop.getRun('s-written'))!.messages.filter((m) => m.role === 'tool');
  assert.equal(tools.length, 1, 'one ToolResult, not two');
});

test('a cancel is rolled forward and not continued; a fresh stall waits, still listed', async (t) => {
  const { model, store } = await setup(t, 'ask-cancel');
  await pausedThenClaimed(store, model, 's-cancel', 'ask-cancel', { selections: [], customInput: '', cancelled: true });
  const next = instance(store, model, { resumeStalledAfterMs: 1, resumeWaitMs: 0 });
  await sleep(5);
  const report = await next.loop.sweep();
  assert.deepEqual({ rolledForward: report.rolledForward, resumed: report.resumed }, { rolledForward: 1, resumed: 0 });
  assert.equal(deliveries(model.requests, 'ask-cancel').length, 0, 'no model call after a cancel');

  model.enqueue({ toolCalls: [askSingle('ask-fresh')] });
  await pausedThenClaimed(store, model, 's-fresh', 'ask-fresh');
  const cautious = instance(store, model); // default: only stalls older than 10 s
  const later = await cautious.loop.sweep();
  assert.equal(later.resumed, 0, 'a just-accepted answer may still be continuing elsewhere');
  assert.equal(deliveries(model.requests, 'ask-fresh').length, 0);
  assert.deepEqual(await new PausedIndex(store).list(), ['s-fresh'], 'listed for the next sweep');
});

test('a continued run that failed is not retried by sweeps: an error settles what was owed', async (t) => {
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('ask-err')] }], fallback: { failStatus: 400 } });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  const live = instance(store, model, { resumeStalledAfterMs: 1, resumeWaitMs: 0, onError: () => {} });
  const sse = recordingSink();
  await live.loop.chat({ caller: undefined, sessionId: 's-err', message: 'ask me', sse });
  const ask = sse.events.find((e) => e.event === 'user_input_required')!.data as { id: string };
  // What the continue route does after its checks: claim, then hand the answer to the host.
  const claimed = await store.claim(ask.id, { status: 'answered', at: Date.now(), answer: ANSWER });
  assert.ok(claimed.ok);
  const cont = recordingSink();
  await live.loop.resume({ record: claimed.record!, answer: ANSWER, toolResultContent: answerToolResultText(ANSWER), sse: cont });
  assert.match(JSON.stringify(cont.events), /model_error/);
  const calls = model.requests.length;
  await sleep(5);
  for (let i = 0; i < 3; i++) assert.equal((await live.loop.sweep()).resumed, 0);
  assert.equal(model.requests.length, calls, 'no model call after the reported failure');
  assert.deepEqual(await new PausedIndex(store).list(), [], 'nothing left listed');
});

test('sweeps run one at a time, one failing session does not stop the others, and the timings are checked', async (t) => {
  const { model, store: inner } = await setup(t, 'ask-ok');
  await pausedThenClaimed(inner, model, 's-ok', 'ask-ok');
  await new PausedIndex(inner).add('s-broken', { requestId: 'ask_broken' });
  // Reading the broken session's run fails; the sweep must still reach s-ok.
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        p === 'getState' && args[0] === 'run:s-broken'
          ? Promise.reject(new Error('unreadable run'))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  }) as PendingStore;
  const errors: unknown[] = [];
  const next = instance(store, model, { resumeStalledAfterMs: 1, resumeWaitMs: 0, onError: (e) => errors.push(e) });
  await sleep(5);
  const [a, b] = [next.loop.sweep(), next.loop.sweep()];
  assert.equal(a, b, 'a second sweep joins the running one');
  const report = await a;
  assert.equal(report.resumed, 1, 's-ok was continued');
  assert.equal(errors.length, 1, 'the broken session was logged');
  assert.throws(
    () =>
      createAgentLoop({
        client: new OpenAI({ apiKey: 't', baseURL: model.baseURL }),
        model: 'm',
        store: inner,
        resumeStalledAfterMs: 3000,
        coordinator: createAskUserKit({ authorize: allowAnyCaller, store: inner }),
      }),
    /resumeStalledAfterMs/,
  );
});
