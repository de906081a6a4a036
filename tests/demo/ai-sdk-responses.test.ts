/**
 * The demo's AI SDK runtime on the Responses API (ASK_USER_RUNTIME=ai-sdk, ASK_USER_AI_SDK_API=responses),
 * offline against the demo's own scripted assistant on its Responses endpoint: the demo's tool runs, the
 * card is asked, answered once, and the assistant's reply names what reached it; every request went to
 * /responses with `store: false`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore } from '../../plugin/index.js';
import { readDemoConfig } from '../../demo/config.js';
import { demoAiSdkRuntime, loopView } from '../../demo/ai-sdk-runtime.js';
import { demoTools } from '../../demo/tools.js';
import { DEMO_SYSTEM_PROMPT } from '../../demo/demo-core.js';
import { createAssistant, SCRIPTED_MODEL_NAME, startChatCompletionsServer, type ChatRequestBody } from '../../demo/scripted-model/index.js';
import { serveKoaChat } from '../helpers/koa-chat-server.js';
import { parseSse } from '../plugin/harness.js';

test('ASK_USER_AI_SDK_API=responses: a card end to end on the AI SDK runtime over the Responses API, offline', async (t) => {
  const config = readDemoConfig({ ASK_USER_RUNTIME: 'ai-sdk', ASK_USER_AI_SDK_API: 'responses', ASK_USER_LOCALE: 'en' });
  assert.equal(config.aiSdkApi, 'responses');

  const seen: ChatRequestBody[] = [];
  const assistant = createAssistant({ pieceDelayMs: 0 });
  const model = await startChatCompletionsServer({ respond: (body) => (seen.push(structuredClone(body)), assistant(body)) });
  const store = await openStore('memory');
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: config.apiKey });
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: memoryAuditLogger(),
    expiryTimers: false,
    runtime: await demoAiSdkRuntime({
      client,
      model: SCRIPTED_MODEL_NAME,
      tools: demoTools,
      maxRounds: config.maxRounds,
      locale: config.locale,
      system: DEMO_SYSTEM_PROMPT,
      api: config.aiSdkApi,
      onError: () => {},
    }),
  });
  const { post, close } = await serveKoaChat(kit);
  t.after(async () => (await close(), await kit.close(), await store.close(), await model.close()));

  const chat = parseSse(await (await post('/api/chat', { sessionId: 's-ai-resp', message: 'Run the tests please' })).text()).frames;
  const toolResult = chat.find((f) => f.event === 'tool_result')?.data as { name: string; content: string };
  assert.equal(toolResult?.name, 'list_test_suites', "the demo's tool ran first");
  const ask = chat.find((f) => f.event === 'user_input_required')?.data as { id: string; mode: string };
  assert.equal(ask?.mode, 'multiple', 'the card built from the tool result was asked');
  assert.deepEqual(chat.at(-1)?.data, { reason: 'paused' });

  const res = await post('/api/chat/continue', {
    sessionId: 's-ai-resp',
    requestId: ask.id,
    selections: ['unit'],
    customInput: '',
    cancelled: false,
  });
  assert.equal(res.status, 200);
  const cont = parseSse(await res.text()).frames;
  assert.deepEqual(cont.at(-1)?.data, { reason: 'completed' });
  const reply = cont
    .filter((f) => f.event === 'message_delta')
    .map((f) => (f.data as { text: string }).text)
    .join('');
  assert.match(reply, /“Unit” \(unit\)/, 'the answer reached the model through the Responses API');

  assert.equal(seen.length, 3);
  for (const body of seen) {
    assert.equal(body.api, 'responses', 'every call went to /responses');
    assert.equal(body.store, false, 'the provider keeps nothing of the run');
  }
  const run = await kit.runtime.getRun('s-ai-resp');
  assert.deepEqual(
    loopView(run!).messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
  );
});

test('ASK_USER_AI_SDK_API: chat by default, responses on request, anything else (or set without the AI SDK runtime) refused', () => {
  assert.equal(readDemoConfig({ ASK_USER_RUNTIME: 'ai-sdk' }).aiSdkApi, 'chat');
  assert.equal(readDemoConfig({}).aiSdkApi, 'chat');
  assert.throws(() => readDemoConfig({ ASK_USER_RUNTIME: 'ai-sdk', ASK_USER_AI_SDK_API: 'completions' }), {
    code: 'invalid_config',
    message: /ASK_USER_AI_SDK_API/,
  });
  assert.throws(() => readDemoConfig({ ASK_USER_RUNTIME: 'responses', ASK_USER_AI_SDK_API: 'responses' }), {
    code: 'invalid_config',
    message: /ASK_USER_AI_SDK_API applies to ASK_USER_RUNTIME=ai-sdk/,
  });
});
