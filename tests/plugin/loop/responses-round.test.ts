/**
 * The loop on the Responses API, against the scripted model's Responses endpoint through the real
 * `openai` client: nothing is kept on the provider's side unless the host opts in (`store: false` on every
 * request); a reasoning model's reasoning items are asked for encrypted, kept in the run state with the
 * turn they preceded and sent back right before the calls they preceded, also after a restart; and a
 * reply that did not complete (a cut stream, `response.incomplete`, `response.failed`) is a `model_error`
 * of which nothing is stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../plugin/store/index.js';
import { startScriptedModel, type ChatRequestBody } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { startLoopServer, frame } from './loop-server.js';

const inputOf = (body: ChatRequestBody) => body.input as Array<Record<string, any>>;

test('every Responses request says store: false and asks for encrypted reasoning; responsesStore: true opts in', async (t) => {
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_s1')] }], fallback: { text: 'ok' } });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));

  const off = await startLoopServer(store, model.baseURL, { api: 'responses' });
  const ask = frame(await off.chat('s-store', 'go'), 'user_input_required');
  const cont = await off.answer('s-store', ask.id, ['safe']);
  assert.deepEqual(frame(cont.frames, 'done'), { reason: 'completed' });
  await off.close();
  assert.equal(model.requests.length, 2);
  for (const body of model.requests) {
    assert.equal(body.store, false, 'nothing of the run is kept on the provider side');
    assert.deepEqual(body.include, ['reasoning.encrypted_content']);
  }

  const on = await startLoopServer(store, model.baseURL, { api: 'responses', responsesStore: true });
  t.after(() => on.close());
  assert.deepEqual(frame(await on.chat('s-store-on', 'go'), 'done'), { reason: 'completed' });
  const last = model.requests.at(-1)!;
  assert.equal(last.store, true);
  assert.equal(last.include, undefined, 'a stored response is referenced by id: no encrypted copy needed');
});

test('reasoning survives a pause and a restart on SQLite: sent back right before its function_call, encrypted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ask-user-reasoning-'));
  const url = `sqlite://${join(dir, 'runs.db')}`;
  const model = await startScriptedModel({
    turns: [{ reasoning: 'The user must pick a path.', toolCalls: [askSingle('call_rs')] }, { text: 'Going ahead.' }],
  });
  t.after(async () => (await model.close(), await rm(dir, { recursive: true, force: true })));

  const first = await openStore(url);
  const before = await startLoopServer(first, model.baseURL, { api: 'responses' });
  const ask = frame(await before.chat('s-rs', 'start'), 'user_input_required');
  const paused = await before.loop.getRun('s-rs');
  await before.close();
  await first.close();
  const assistant = paused!.messages.find((m) => m.role === 'assistant') as Record<string, any>;
  assert.equal(assistant.reasoningItems.length, 1, 'the reasoning item is kept with the turn it preceded');
  assert.equal(assistant.reasoningItems[0].beforeCallId, 'call_rs');
  assert.match(assistant.reasoningItems[0].encrypted_content, /^enc_/);

  // A new process on the same file: the answer resumes the stored run.
  const second = await openStore(url);
  t.after(() => second.close());
  const after = await startLoopServer(second, model.baseURL, { api: 'responses' });
  t.after(() => after.close());
  const cont = await after.answer('s-rs', ask.id, ['safe']);
  assert.equal(cont.status, 200);
  assert.deepEqual(frame(cont.frames, 'done'), { reason: 'completed' }, 'the strict endpoint took the history');
  const input = inputOf(model.requests[1]!);
  const at = input.findIndex((i) => i.type === 'function_call' && i.call_id === 'call_rs');
  assert.deepEqual(
    input.slice(at - 1, at + 2).map((i) => i.type ?? i.role),
    ['reasoning', 'function_call', 'function_call_output'],
    'the reasoning item comes right before its function_call',
  );
  assert.equal(input[at - 1]!.id, assistant.reasoningItems[0].id);
  assert.equal(input[at - 1]!.encrypted_content, assistant.reasoningItems[0].encrypted_content);
  assert.deepEqual(input[at - 1]!.summary, [{ type: 'summary_text', text: 'The user must pick a path.' }]);
});

test('reasoning before text and between parallel calls keeps its place; Chat Completions never gets it', async (t) => {
  const model = await startScriptedModel({
    turns: [
      {
        raw: [
          { type: 'response.created', response: { id: 'resp_p', status: 'in_progress', output: [] } },
          {
            type: 'response.completed',
            response: {
              id: 'resp_p',
              status: 'completed',
              output: [
                { type: 'reasoning', id: 'rs_a', summary: [], encrypted_content: encrypted('rs_a') },
                { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Two things.' }] },
                { type: 'function_call', id: 'fc_1', call_id: 'call_tool', name: 'echo', arguments: '{}' },
                { type: 'reasoning', id: 'rs_b', summary: [], encrypted_content: encrypted('rs_b') },
                {
                  type: 'function_call',
                  id: 'fc_2',
                  call_id: 'call_ask',
                  name: 'ask_user',
                  arguments: JSON.stringify(askSingle().arguments),
                },
              ],
            },
          },
        ],
      },
      { text: 'Thanks.' },
      { text: 'Chat reply.' },
    ],
  });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  const tools = [{ name: 'echo', description: 'echo', parameters: { type: 'object', properties: {} }, run: () => 'echoed' }];
  const responses = await startLoopServer(store, model.baseURL, { api: 'responses', tools });
  const ask = frame(await responses.chat('s-order', 'go'), 'user_input_required');
  assert.equal(frame((await responses.answer('s-order', ask.id, ['safe'])).frames, 'done').reason, 'completed');
  await responses.close();
  assert.deepEqual(
    inputOf(model.requests[1]!)
      .slice(1)
      .map((i) => i.id ?? i.call_id ?? i.role),
    ['rs_a', 'assistant', 'call_tool', 'rs_b', 'call_ask', 'call_tool', 'call_ask'],
  );

  // The same stored run read by a loop on Chat Completions: the history goes without the kit's fields.
  const chat = await startLoopServer(store, model.baseURL, { api: 'chat', tools });
  t.after(() => chat.close());
  assert.deepEqual(frame(await chat.chat('s-order', 'and now?'), 'done'), { reason: 'completed' });
  const sent = JSON.stringify(model.requests.at(-1)!.messages);
  assert.doesNotMatch(sent, /reasoningItems|rs_a|encrypted/);
});

/** What the scripted model issues as encrypted content for a reasoning item (it verifies its own). */
function encrypted(id: string): string {
  return `enc_${Buffer.from(JSON.stringify({ id, summary: '' }), 'utf8').toString('base64url')}`;
}

test('an endpoint that refuses encrypted reasoning (a model that does not reason) is asked again without it, once', async (t) => {
  const refused = { failStatus: 400, failMessage: 'Encrypted content is not supported with this model.', failParam: 'include' };
  const model = await startScriptedModel({
    fallback: (body) => (body.include ? refused : body.messages.at(-1)?.role === 'tool' ? { text: 'done' } : { toolCalls: [askSingle()] }),
  });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  const server = await startLoopServer(store, model.baseURL, { api: 'responses' });
  t.after(() => server.close());
  const ask = frame(await server.chat('s-plain', 'go'), 'user_input_required');
  assert.ok(ask, 'the turn went through on the second try');
  assert.deepEqual(frame((await server.answer('s-plain', ask.id, ['safe'])).frames, 'done'), { reason: 'completed' });
  assert.deepEqual(
    model.requests.map((b) => [b.store, b.include !== undefined]),
    [
      [false, true],
      [false, false],
      [false, false],
    ],
    'refused once, then never asked again; store stays false',
  );
});

test('a stream cut inside a call’s arguments, without response.completed, is a model_error and nothing is stored', async (t) => {
  const model = await startScriptedModel({
    // created, the call added, then one arguments piece: the stream ends cleanly there.
    turns: [
      { toolCalls: [askSingle('call_cut')], chunkSize: 5, cutAt: 3 },
      { toolCalls: [askSingle('call_whole')], noDone: true },
    ],
    fallback: { text: 'fine again' },
  });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  const server = await startLoopServer(store, model.baseURL, { api: 'responses' });
  t.after(() => server.close());

  for (const sessionId of ['s-cut-args', 's-cut-done']) {
    const frames = await server.chat(sessionId, 'go');
    assert.equal(frame(frames, 'error')?.code, 'model_error', sessionId);
    assert.deepEqual(frame(frames, 'done'), { reason: 'error' });
    assert.equal(frame(frames, 'user_input_required'), undefined, 'a call of an unfinished reply is never asked');
    const run = await server.loop.getRun(sessionId);
    assert.deepEqual(
      run!.messages.map((m) => m.role),
      ['user'],
      'nothing of the cut reply is in the history',
    );
  }
  assert.deepEqual(frame(await server.chat('s-cut-done', 'again'), 'done'), { reason: 'completed' }, 'the session stays usable');
});

test('response.incomplete, response.failed and an incomplete JSON Response are model errors, never a stored reply', async (t) => {
  const created = { type: 'response.created', response: { id: 'resp_i', status: 'in_progress', output: [] } };
  const said = { type: 'response.output_text.delta', item_id: 'msg_i', output_index: 0, content_index: 0, delta: 'Half a sent' };
  const message = { type: 'message', id: 'msg_i', role: 'assistant', content: [{ type: 'output_text', text: 'Half a sent' }] };
  const ended = (type: string, extra: Record<string, unknown>) => ({
    type,
    response: { id: 'resp_i', status: type.split('.')[1], output: [message], ...extra },
  });
  const model = await startScriptedModel({
    turns: [
      { raw: [created, said, ended('response.incomplete', { incomplete_details: { reason: 'max_output_tokens' } })] },
      { raw: [created, said, ended('response.failed', { error: { code: 'server_error', message: 'boom' } })] },
      { json: { id: 'resp_j', object: 'response', status: 'incomplete', output: [message] } },
    ],
  });
  const store = await openStore('memory');
  t.after(async () => (await model.close(), await store.close()));
  const server = await startLoopServer(store, model.baseURL, { api: 'responses' });
  t.after(() => server.close());
  for (const sessionId of ['s-incomplete', 's-failed', 's-json']) {
    const frames = await server.chat(sessionId, 'go');
    assert.equal(frame(frames, 'error')?.code, 'model_error', sessionId);
    assert.deepEqual(frame(frames, 'done'), { reason: 'error' }, sessionId);
    assert.deepEqual(
      (await server.loop.getRun(sessionId))!.messages.map((m) => m.role),
      ['user'],
      `${sessionId}: the unfinished text is not stored as the assistant's reply`,
    );
  }
});
