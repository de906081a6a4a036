/**
 * The runtime's edges, driven without HTTP: a second message while a run holds the session, a client that
 * leaves mid-step, a reply with neither text nor a tool call, and the step budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonSchema, tool } from 'ai';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore } from '../../../plugin/index.js';
import { aiSdkRuntime, type AiSdkRuntimeOptions } from '../../../plugin/ai-sdk/index.js';
import { recordingSink } from '../../helpers/recording-sink.js';
import { mockModel, type MockTurn } from './mock-model.js';

async function setup(t: { after(fn: () => Promise<void>): void }, turns: MockTurn[], options: Partial<AiSdkRuntimeOptions> = {}) {
  const store = await openStore('memory');
  const mock = mockModel(turns);
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: memoryAuditLogger(),
    expiryTimers: false,
    runtime: aiSdkRuntime({ model: mock.model, onError: () => {}, settings: { maxRetries: 0 }, ...options }),
  });
  t.after(async () => (await kit.close(), await store.close()));
  return { mock, runtime: kit.runtime };
}

const eventsOf = (sink: ReturnType<typeof recordingSink>) => sink.events.map((e) => [e.event, e.data]);

test('a second message while the session runs is refused as session_busy; the first run is untouched', async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const { runtime } = await setup(t, [{ text: 'slow answer', hold }]);
  const first = recordingSink();
  const running = runtime.chat({ caller: undefined, sessionId: 'e1', message: 'one', sse: first });
  await new Promise((r) => setTimeout(r, 30));
  const second = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e1', message: 'two', sse: second });
  assert.equal(second.events[0]?.event, 'error');
  assert.equal(second.events[0]?.data.code, 'session_busy');
  assert.deepEqual(second.events.at(-1), { event: 'done', data: { reason: 'error' } });
  release();
  await running;
  assert.deepEqual(first.events.at(-1), { event: 'done', data: { reason: 'completed' } });
  const run = await runtime.getRun('e1');
  assert.deepEqual(
    run?.messages.map((m) => m.role),
    ['user', 'assistant'],
    'the refused message was not stored',
  );
  assert.equal(run?.lease, undefined, 'the lease was let go');
});

test('a client leaving mid-step does not stop the run (§11): it completes into the history, and the next message runs', async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const { runtime, mock } = await setup(t, [{ text: 'never seen', hold }, { text: 'back again' }]);
  const sink = recordingSink();
  const running = runtime.chat({ caller: undefined, sessionId: 'e2', message: 'one', sse: sink });
  await new Promise((r) => setTimeout(r, 30));
  sink.disconnect();
  release();
  await running;
  const run = await runtime.getRun('e2');
  assert.equal(run?.status, 'idle');
  assert.equal(run?.lease, undefined);
  const next = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e2', message: 'two', sse: next });
  assert.deepEqual(next.events.at(-1), { event: 'done', data: { reason: 'completed' } });
  assert.deepEqual(
    mock.prompts.at(-1)!.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(sink.events.length, 0, 'nothing reached the client that left');
});

test('an empty reply is an error and is never stored', async (t) => {
  const { runtime } = await setup(t, [{ text: '' }]);
  const sink = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e3', message: 'one', sse: sink });
  assert.deepEqual(
    eventsOf(sink).map(([e]) => e),
    ['error', 'done'],
  );
  assert.equal(sink.events[0]?.data.code, 'empty_reply');
  assert.deepEqual(
    (await runtime.getRun('e3'))?.messages.map((m) => m.role),
    ['user'],
  );
});

test('the step budget: max_rounds once it is spent, each step checkpointed with its results', async (t) => {
  const call = (id: string): MockTurn => ({ toolCalls: [{ id, name: 'ping', arguments: {} }] });
  const { runtime, mock } = await setup(t, [call('p1'), call('p2'), call('p3')], {
    maxSteps: 2,
    tools: {
      ping: tool({ description: 'ping', inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }), execute: async () => 'pong' }),
    },
  });
  const sink = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e4', message: 'loop', sse: sink });
  assert.equal(mock.prompts.length, 2);
  assert.equal(sink.events.find((e) => e.event === 'error')?.data.code, 'max_rounds');
  const run = await runtime.getRun('e4');
  assert.deepEqual(
    run?.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant', 'tool'],
  );
});

test('a model that goes quiet ends the step with model_timeout, nothing stored', async (t) => {
  const { runtime } = await setup(t, [{ text: 'never', hold: new Promise(() => {}) }], { modelIdleTimeoutMs: 60 });
  const sink = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e5', message: 'one', sse: sink });
  assert.equal(sink.events[0]?.data.code, 'model_timeout');
  assert.deepEqual(sink.events.at(-1), { event: 'done', data: { reason: 'error' } });
  assert.deepEqual(
    (await runtime.getRun('e5'))?.messages.map((m) => m.role),
    ['user'],
  );
});

test('§11 on the AI SDK runtime: frames are logged with ids in order, and the stop button ends a held run as cancelled', async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const store = await openStore('memory');
  const mock = mockModel([{ text: 'numbered reply' }, { text: 'never finished', hold }]);
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: memoryAuditLogger(),
    expiryTimers: false,
    runtime: aiSdkRuntime({ model: mock.model, onError: () => {}, settings: { maxRetries: 0 } }),
  });
  t.after(async () => (await kit.close(), await store.close()));
  const runtime = kit.runtime;
  const first = recordingSink();
  await runtime.chat({ caller: undefined, sessionId: 'e11', message: 'one', sse: first });
  const logged = await kit.log.read('e11');
  assert.equal(logged.kind, 'frames');
  const frames = logged.kind === 'frames' ? logged.frames : [];
  assert.deepEqual(
    frames.map((f) => f.event),
    first.events.map((e) => e.event),
  );
  assert.deepEqual(
    frames.map((f) => f.seq),
    frames.map((_, i) => i + 1),
  );
  assert.deepEqual(JSON.parse(frames.at(-1)!.data), { reason: 'completed' });

  const second = recordingSink();
  const running = runtime.chat({ caller: undefined, sessionId: 'e11', message: 'two', sse: second });
  while (mock.prompts.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(await runtime.stop('e11'), { stopped: true });
  await running;
  release();
  assert.deepEqual(second.events.at(-1), { event: 'done', data: { reason: 'cancelled' } });
  assert.equal((await runtime.getRun('e11'))?.status, 'idle');
  assert.deepEqual(await runtime.stop('e11'), { stopped: false });
});
