/**
 * Pause and continue through the real `openai` client against the scripted model: what the model is
 * sent after an answer is the original history plus exactly one tool message for the paused call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerBody, first, getJson, postStream, shape, text } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

test('a question pauses the run after its state is stored; continue sends history + the exact ToolResult once', async (t) => {
  const h = await startHarness({
    turns: [
      { text: 'Let me ask first.', toolCalls: [askSingle('call_ask_1')] },
      (body) => ({ text: `You said ${String(body.messages.at(-1)?.content)}` }),
    ],
  });
  t.after(() => h.close());

  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-pause', message: 'please do the thing' });
  assert.equal(chat.status, 200);
  assert.match(chat.contentType, /^text\/event-stream/);
  assert.deepEqual(shape(chat), ['message_delta', 'user_input_required', 'done']);
  assert.equal(text(chat), 'Let me ask first.');
  const ask = first(chat, 'user_input_required');
  assert.equal(ask.toolCallId, 'call_ask_1');
  assert.equal(ask.resumable, true);
  assert.match(ask.id, /^ask_[A-Za-z0-9_-]{22,}$/);
  assert.deepEqual(first(chat, 'done'), { reason: 'paused' });

  // The run is on the store, paused on this exact request.
  const run = await h.demo.loop.getRun('s-pause');
  assert.equal(run?.status, 'paused');
  assert.deepEqual(run?.paused, { requestId: ask.id, toolCallId: 'call_ask_1', round: 1 });

  // The model saw ask_user among its tools.
  assert.equal(h.model.requests.length, 1);
  assert.ok(h.model.requests[0]!.tools?.some((tool) => tool.function.name === 'ask_user'));

  const pending = await getJson(`${h.url}/api/interactions/pending?sessionId=s-pause`);
  assert.equal(pending.body.pending.id, ask.id);
  assert.equal(pending.body.pending.resumable, true);

  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-pause', ask.id, ['implement'], 'but carefully'));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  const exact = '{"selections":["implement"],"customInput":"but carefully","cancelled":false}';
  assert.deepEqual(first(cont, 'tool_result'), { toolCallId: 'call_ask_1', name: 'ask_user', content: exact, isError: false });
  assert.deepEqual(first(cont, 'done'), { reason: 'completed' });

  assert.equal(h.model.requests.length, 2, 'the model is called exactly once after the answer');
  const [before, after] = h.model.requests;
  const assistant = after!.messages[before!.messages.length]!;
  assert.deepEqual(after!.messages.slice(0, before!.messages.length), before!.messages, 'the original history is sent unchanged');
  assert.equal(assistant.role, 'assistant');
  assert.equal(assistant.content, 'Let me ask first.');
  assert.deepEqual(
    (assistant.tool_calls as any[]).map((c) => [c.id, c.function.name]),
    [['call_ask_1', 'ask_user']],
  );
  assert.deepEqual(after!.messages.slice(before!.messages.length + 1), [{ role: 'tool', tool_call_id: 'call_ask_1', content: exact }]);
  assert.ok(
    after!.tools?.some((tool) => tool.function.name === 'ask_user'),
    'ask_user is offered again in the next round',
  );
  assert.equal(text(cont), `You said ${exact}`);

  const done = await h.demo.loop.getRun('s-pause');
  assert.equal(done?.status, 'idle');
  assert.equal((await h.store.get(ask.id))?.toolResultWritten, true);
  assert.equal((await getJson(`${h.url}/api/interactions/pending?sessionId=s-pause`)).body.pending, null);

  // A duplicate continue is refused and writes no second ToolResult.
  const again = await postStream(`${h.url}/api/chat/continue`, answerBody('s-pause', ask.id, ['safe']));
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, 'already_answered');
  assert.equal(h.model.requests.length, 2);
  const toolMessages = (await h.demo.loop.getRun('s-pause'))!.messages.filter((m) => m.role === 'tool');
  assert.equal(toolMessages.length, 1);
});

test('cancel writes the cancel ToolResult and ends the run without a model call', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_c')] }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-cancel', message: 'go' });
  const ask = first(chat, 'user_input_required');
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-cancel', ask.id, ['safe'], 'ignored', true));
  assert.equal(cont.status, 200);
  assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'done']);
  assert.equal(first(cont, 'tool_result').content, '{"selections":[],"customInput":"","cancelled":true}');
  assert.deepEqual(first(cont, 'done'), { reason: 'cancelled' });
  assert.equal(h.model.requests.length, 1, 'no model call follows a cancel');
  const run = await h.demo.loop.getRun('s-cancel');
  assert.equal(run?.status, 'idle');
  assert.deepEqual(run?.messages.at(-1), {
    role: 'tool',
    tool_call_id: 'call_c',
    content: '{"selections":[],"customInput":"","cancelled":true}',
  });

  // The next message carries the cancelled call's result in history.
  h.model.enqueue({ text: 'ok' });
  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-cancel', message: 'something else' });
  assert.deepEqual(first(next, 'done'), { reason: 'completed' });
  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(
    sent.slice(-2).map((m) => m.role),
    ['tool', 'user'],
  );
});

test('ordinary tool calls of the asking turn run first and their results stay in call order', async (t) => {
  const calls: string[] = [];
  const h = await startHarness({
    tools: [
      {
        name: 'lookup',
        description: 'look something up',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
        run: (args) => {
          calls.push(String(args.q));
          return `found ${String(args.q)}`;
        },
      },
    ],
    turns: [
      {
        toolCalls: [
          { id: 'call_a', name: 'lookup', arguments: { q: 'first' } },
          askSingle('call_ask'),
          { id: 'call_b', name: 'lookup', arguments: { q: 'second' } },
        ],
        interleave: true,
        chunkSize: 3,
      },
      { text: 'thanks' },
    ],
  });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-mixed', message: 'mixed' });
  assert.deepEqual(shape(chat), ['tool_result', 'tool_result', 'user_input_required', 'done']);
  assert.deepEqual(
    chat.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.toolCallId, e.data.content]),
    [
      ['call_a', 'found first'],
      ['call_b', 'found second'],
    ],
  );
  assert.deepEqual(calls, ['first', 'second']);
  const ask = first(chat, 'user_input_required');
  await postStream(`${h.url}/api/chat/continue`, answerBody('s-mixed', ask.id, ['safe']));
  const sent = h.model.requests[1]!.messages;
  assert.deepEqual(
    sent.slice(-3).map((m) => [m.role, m.tool_call_id]),
    [
      ['tool', 'call_a'],
      ['tool', 'call_ask'],
      ['tool', 'call_b'],
    ],
    'the ask_user result is placed at its call position',
  );
  assert.deepEqual(
    (sent.at(-4)!.tool_calls as any[]).map((c) => [c.id, c.function.arguments]),
    [
      ['call_a', '{"q":"first"}'],
      ['call_ask', JSON.stringify(askSingle().arguments)],
      ['call_b', '{"q":"second"}'],
    ],
    'interleaved argument deltas were joined per index',
  );
});

test('a question asked in the last round still hands its answer to the model', async (t) => {
  const h = await startHarness({
    maxRounds: 1,
    turns: [{ toolCalls: [askSingle('call_last')] }, (body) => ({ text: `got ${String(body.messages.at(-1)?.content)}` })],
  });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-last', message: 'go' });
  const ask = first(chat, 'user_input_required');
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-last', ask.id, ['safe']));
  assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
  assert.equal(h.model.requests.length, 2, 'the model was called with the answer');
  assert.equal(h.model.requests[1]!.messages.at(-1)?.role, 'tool');
  assert.match(text(cont), /got \{"selections":\["safe"\]/);
});
