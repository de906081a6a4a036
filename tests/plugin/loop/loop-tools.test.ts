/**
 * The tool loop's handling of the model's mistakes and limits, driven directly through createAgentLoop
 * (no HTTP) with the real `openai` client: they become tool messages or a clean error, never a crash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createAskUserKit } from '../../../plugin/core/ask-user-kit.js';
import { memoryAuditLogger } from '../../../plugin/core/audit.js';
import { openStore } from '../../../plugin/store/index.js';
import type { PendingStore } from '../../../plugin/store/types.js';
import { agentRuntime, redactSecrets, type AgentRuntimeOptions, type LoopTool, type RunState } from '../../../plugin/loop/index.js';
import { startScriptedModel, type TurnScript } from '../../helpers/scripted-model.js';
import { recordingSink, type RecordingSink } from '../../helpers/recording-sink.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { allowAnyCaller } from '../../../plugin/core/authorization.js';

async function makeLoop(turns: TurnScript[], options: Partial<AgentRuntimeOptions> = {}, wrapStore?: (s: PendingStore) => PendingStore) {
  const model = await startScriptedModel({ turns });
  const base = await openStore('memory');
  const store = wrapStore ? wrapStore(base) : base;
  const kit = createAskUserKit({
    authorize: allowAnyCaller,
    store,
    logger: memoryAuditLogger(),
    runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm', ...options }),
  });
  const loop = kit.runtime;
  const chat = async (sessionId: string, message: string): Promise<RecordingSink> => {
    const sse = recordingSink();
    await loop.chat({ caller: undefined, sessionId, message, sse });
    return sse;
  };
  return { model, store, loop, kit, chat, close: async () => (await kit.close(), await model.close(), await base.close()) };
}

const kinds = (s: RecordingSink) =>
  s.events.map((e) => e.event).filter((e, i, a) => !(e === 'message_delta' && a[i - 1] === 'message_delta'));
const results = (s: RecordingSink) => s.events.filter((e) => e.event === 'tool_result').map((e) => e.data);

test('the paused state is in the store before user_input_required is written', async (t) => {
  let pausedStored = false;
  const wrap = (s: PendingStore): PendingStore =>
    new Proxy(s, {
      get(target, prop, receiver) {
        if (prop !== 'putState' && prop !== 'casState') return Reflect.get(target, prop, receiver);
        return async (key: string, value: unknown, opts: unknown) => {
          const ok = await target[prop](key, value, opts as never);
          if (ok && key.startsWith('run:') && (value as RunState).status === 'paused') pausedStored = true;
          return ok;
        };
      },
    });
  const h = await makeLoop([{ toolCalls: [askSingle('call_order')] }], {}, wrap);
  t.after(() => h.close());
  const sse = recordingSink();
  let storedWhenAnnounced: boolean | undefined;
  sse.onSend = (event) => {
    if (event === 'user_input_required') storedWhenAnnounced = pausedStored;
  };
  await h.loop.chat({ caller: undefined, sessionId: 's-order', message: 'ask', sse });
  assert.equal(storedWhenAnnounced, true);
});

test('an unknown tool and bad JSON arguments become error tool messages and the loop goes on', async (t) => {
  const h = await makeLoop(
    [
      {
        toolCalls: [
          { id: 'call_u', name: 'no_such_tool', arguments: {} },
          { id: 'call_j', name: 'echo', arguments: '{"x": tru' },
        ],
      },
      { text: 'recovered' },
    ],
    { tools: [{ name: 'echo', description: 'echo', parameters: { type: 'object' }, run: (a) => JSON.stringify(a) }] },
  );
  t.after(() => h.close());
  const sse = await h.chat('s-bad', 'go');
  assert.deepEqual(kinds(sse), ['tool_result', 'tool_result', 'message_delta', 'done']);
  const [unknown, badJson] = results(sse);
  assert.equal(unknown.isError, true);
  assert.match(unknown.content, /unknown tool "no_such_tool"/);
  assert.match(unknown.content, /ask_user/);
  assert.equal(badJson.isError, true);
  assert.match(badJson.content, /not valid JSON/);
  assert.deepEqual(sse.events.at(-1)!.data, { reason: 'completed' });
  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(
    sent.slice(-2).map((m) => m.tool_call_id),
    ['call_u', 'call_j'],
  );
});

test('invalid ask_user arguments never reach the user: the model gets an error ToolResult and may ask again', async (t) => {
  const h = await makeLoop([
    { toolCalls: [{ id: 'call_inv', name: 'ask_user', arguments: { title: 'Pick', mode: 'single', options: [] } }] },
    { toolCalls: [askSingle('call_ok')] },
  ]);
  t.after(() => h.close());
  const sse = await h.chat('s-inv', 'go');
  assert.deepEqual(kinds(sse), ['tool_result', 'user_input_required', 'done']);
  const [refusal] = results(sse);
  assert.equal(refusal.toolCallId, 'call_inv');
  assert.equal(refusal.isError, true);
  assert.match(refusal.content, /options/);
  assert.equal(sse.events.find((e) => e.event === 'user_input_required')!.data.toolCallId, 'call_ok');
  assert.equal(h.model.requests[1]!.messages.at(-1)!.tool_call_id, 'call_inv');
});

test('two ask_user calls in one turn: the second is refused with "one question at a time"', async (t) => {
  const h = await makeLoop([{ toolCalls: [askSingle('call_q1'), askSingle('call_q2')] }]);
  t.after(() => h.close());
  const sse = await h.chat('s-two', 'go');
  assert.deepEqual(kinds(sse), ['tool_result', 'user_input_required', 'done']);
  assert.equal(results(sse)[0].toolCallId, 'call_q2');
  assert.match(results(sse)[0].content, /one question at a time/);
  const run = await h.loop.getRun('s-two');
  assert.equal(run?.paused?.toolCallId, 'call_q1');
});

test('rounds are bounded: a model that never stops calling tools ends with max_rounds', async (t) => {
  const loopTool = { id: undefined, name: 'echo', arguments: {} };
  const h = await makeLoop([{ toolCalls: [loopTool] }, { toolCalls: [loopTool] }, { toolCalls: [loopTool] }], {
    maxRounds: 2,
    tools: [{ name: 'echo', description: 'echo', parameters: { type: 'object' }, run: () => 'again' }],
  });
  t.after(() => h.close());
  const sse = await h.chat('s-max', 'go');
  assert.equal(h.model.requests.length, 2);
  const error = sse.events.find((e) => e.event === 'error')!.data;
  assert.equal(error.code, 'max_rounds');
  assert.deepEqual(sse.events.at(-1)!.data, { reason: 'error' });
  assert.equal((await h.loop.getRun('s-max'))?.status, 'idle');
});

test('a failing model call ends the stream with model_error and the session stays usable', async (t) => {
  const h = await makeLoop([{ failStatus: 500 }, { text: 'fine now' }]);
  t.after(() => h.close());
  const sse = await h.chat('s-fail', 'go');
  assert.equal(sse.events.find((e) => e.event === 'error')!.data.code, 'model_error');
  assert.deepEqual(sse.events.at(-1)!.data, { reason: 'error' });
  const again = await h.chat('s-fail', 'retry');
  assert.deepEqual(again.events.at(-1)!.data, { reason: 'completed' });
});

test('an upstream error message never reaches the stream: code, HTTP status and fixed words; the log gets it masked', async (t) => {
  const key = 'sk-live-1234567890abcdefSECRET';
  const logged: unknown[] = [];
  const h = await makeLoop([{ failStatus: 401, failMessage: `Incorrect API key provided: ${key}` }], { onError: (e) => logged.push(e) });
  t.after(() => h.close());
  const sse = await h.chat('s-key', 'go');
  const error = sse.events.find((e) => e.event === 'error')!.data as { code: string; message: string };
  assert.equal(error.code, 'model_error');
  assert.match(error.message, /HTTP 401/);
  assert.doesNotMatch(JSON.stringify(sse.events), /sk-live|SECRET|Incorrect API key/, 'nothing of the upstream message is streamed');
  assert.equal(logged.length, 1, 'the full error goes to onError');
  assert.match(String((logged[0] as Error).message), /Incorrect API key/);
  assert.doesNotMatch(redactSecrets(String((logged[0] as Error).message)), /1234567890abcdefSECRET/, 'the default log masks the key');
});

test('the host allow-list decides whether ask_user is offered; an unoffered call is an unknown tool', async (t) => {
  const h = await makeLoop([{ toolCalls: [askSingle('call_na')] }, { text: 'ok' }], {
    allowedTools: (sessionId) => (sessionId === 'allowed' ? ['ask_user'] : []),
  });
  t.after(() => h.close());
  const sse = await h.chat('restricted', 'go');
  assert.equal(h.model.requests[0]!.tools, undefined, 'no tools are sent when none is allowed');
  assert.deepEqual(kinds(sse), ['tool_result', 'message_delta', 'done']);
  assert.match(results(sse)[0].content, /unknown tool "ask_user"/);
  assert.equal(await h.store.currentOf('restricted'), undefined, 'nothing was asked');

  h.model.enqueue({ text: 'hi' });
  await h.chat('allowed', 'go');
  assert.deepEqual(
    h.model.requests[2]!.tools!.map((x) => x.function.name),
    ['ask_user'],
  );
});

test('a client that leaves mid-stream does not stop the run (§11): it completes, and frees the session', async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const h = await makeLoop([{ text: 'a long answer', hold }, { text: 'next' }]);
  t.after(() => h.close());
  const sse = recordingSink();
  const running = h.loop.chat({ caller: undefined, sessionId: 's-leave', message: 'go', sse });
  await h.model.waitForRequests(1);
  sse.disconnect();
  release();
  await running;
  const run = await h.loop.getRun('s-leave');
  assert.equal(run?.status, 'idle');
  assert.deepEqual(run?.messages.at(-1), { role: 'assistant', content: 'a long answer' });
  const again = await h.chat('s-leave', 'still there?');
  assert.deepEqual(again.events.at(-1)!.data, { reason: 'completed' });
});

test('tools given as a function are read at each turn: a tool added between turns is offered and runs', async (t) => {
  const live: LoopTool[] = [{ name: 'first_tool', description: 'One.', parameters: { type: 'object' }, run: () => 'one' }];
  const h = await makeLoop(
    [{ text: 'hello' }, { toolCalls: [{ id: 'call_new', name: 'added_later', arguments: {} }] }, { text: 'used it' }],
    {
      tools: (sessionId) => (sessionId === 's-live' ? live : []),
    },
  );
  t.after(() => h.close());
  await h.chat('s-live', 'first');
  const offered = (n: number) => (h.model.requests[n]!.tools ?? []).map((tool) => tool.function.name).sort();
  assert.deepEqual(offered(0), ['ask_user', 'first_tool']);
  live.push({ name: 'added_later', description: 'Two.', parameters: { type: 'object' }, run: () => 'two' });
  const second = await h.chat('s-live', 'second');
  assert.deepEqual(offered(1), ['added_later', 'ask_user', 'first_tool']);
  assert.deepEqual(results(second), [{ toolCallId: 'call_new', name: 'added_later', content: 'two', isError: false }]);
});
