/**
 * What real OpenAI-compatible endpoints get wrong, reproduced on the wire by the scripted model and
 * driven through the demo app's real `openai` SDK path. The scripted model checks every request as
 * strict endpoints do (400 for a tool call without exactly one tool message, or an assistant turn with
 * neither text nor calls), so a history the loop got wrong fails the next model call.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { maskedLogger } from '../../plugin/loop/index.js';
import { turnToCompletion } from '../../demo/scripted-model/chat-completions-server.js';
import { LIST_TEST_SUITES } from '../../demo/scripted-model/index.js';
import { startHarness, askSingle, type Harness } from './harness.js';
import { all, answerBody, first, getJson, postStream, type StreamResult } from './sse-client.js';

const ASK = askSingle().arguments;
const ASK_TEXT = JSON.stringify(ASK);

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-quirk',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'quirky',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A tool call streamed as `pieces` of its arguments; `index` undefined leaves the field out. */
function streamedCall(id: string, name: string, args: string, index: number | undefined): Array<Record<string, unknown>> {
  const at = index === undefined ? {} : { index };
  const pieces = args.match(/.{1,9}/gs) ?? [];
  return [
    chunk({ tool_calls: [{ ...at, id, type: 'function', function: { name, arguments: '' } }] }),
    ...pieces.map((p) => chunk({ tool_calls: [{ ...at, function: { arguments: p } }] })),
  ];
}

/** Sends `message`, expects a card, answers it with `safe`, and returns both streams. */
async function askAndAnswer(h: Harness, sessionId: string, message = 'go') {
  const chat = await postStream(`${h.url}/api/chat`, { sessionId, message });
  const card = first(chat, 'user_input_required');
  assert.ok(card, `a card is shown (events: ${chat.events.map((e) => e.event).join(', ')})`);
  assert.equal(card.title, ASK.title);
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, card.id, ['safe']));
  assert.equal(cont.status, 200);
  return { chat, card, cont };
}

/** The answer's ToolResult in the last request the model received. */
function answerInLastRequest(h: Harness, toolCallId: string) {
  const messages = h.model.requests.at(-1)!.messages;
  return messages.filter((m) => m.role === 'tool' && m.tool_call_id === toolCallId).map((m) => JSON.parse(m.content));
}

const errorCode = (r: StreamResult) => first(r, 'error')?.code;

describe('model endpoint quirks', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const [label, index] of [
    ['every call on index 0', 0],
    ['no index at all', undefined],
  ] as const) {
    it(`parallel calls with ${label} stay two calls`, async () => {
      h.model.enqueue(
        {
          raw: [
            ...streamedCall('call_list', LIST_TEST_SUITES, '{}', index),
            ...streamedCall('call_ask', 'ask_user', ASK_TEXT, index),
            chunk({}, 'tool_calls'),
          ],
        },
        { text: 'done' },
      );
      const { chat, card, cont } = await askAndAnswer(h, `merge-${index ?? 'none'}`);
      const ordinary = all(chat, 'tool_result').filter((r) => r.name === LIST_TEST_SUITES);
      assert.equal(ordinary.length, 1, 'the ordinary call ran');
      assert.equal(ordinary[0].isError, false);
      assert.equal(card.toolCallId, 'call_ask');
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      assert.deepEqual(
        answerInLastRequest(h, 'call_ask').map((a) => a.selections),
        [['safe']],
      );
    });
  }

  it('one id for two calls of a turn: each call gets its own id and exactly one result', async () => {
    h.model.enqueue(
      {
        toolCalls: [
          { id: 'call_0', name: LIST_TEST_SUITES, arguments: {} },
          { id: 'call_0', name: 'ask_user', arguments: ASK },
        ],
      },
      { text: 'done' },
    );
    const { chat, card, cont } = await askAndAnswer(h, 'same-id-turn');
    const listed = all(chat, 'tool_result').filter((r) => r.name === LIST_TEST_SUITES);
    assert.equal(listed.length, 1);
    assert.notEqual(listed[0].toolCallId, card.toolCallId, 'the two calls no longer share an id');
    assert.deepEqual(first(cont, 'done'), { reason: 'completed' }, `continue ended with ${errorCode(cont)}`);
    const sent = h.model.requests.at(-1)!.messages;
    assert.equal(sent.filter((m) => m.role === 'tool' && m.tool_call_id === listed[0].toolCallId).length, 1);
    assert.deepEqual(
      answerInLastRequest(h, card.toolCallId).map((a) => a.selections),
      [['safe']],
      'the answer reached the model',
    );
  });

  it('an id reused in a later round gets a fresh one: the second answer reaches the model and the session goes on', async () => {
    const sessionId = 'reused-id';
    h.model.enqueue(
      { toolCalls: [{ id: 'ask_user:0', name: 'ask_user', arguments: ASK }] },
      { toolCalls: [{ id: 'ask_user:0', name: 'ask_user', arguments: ASK }] },
      { text: 'both answers in' },
    );
    const first1 = await askAndAnswer(h, sessionId);
    assert.equal(first1.card.toolCallId, 'ask_user:0');
    const second = first(first1.cont, 'user_input_required');
    assert.ok(second, 'the second question is shown');
    assert.notEqual(second.toolCallId, 'ask_user:0');
    const cont2 = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, second.id, ['implement']));
    assert.equal(errorCode(cont2), undefined);
    assert.deepEqual(first(cont2, 'done'), { reason: 'completed' });
    assert.deepEqual(
      answerInLastRequest(h, second.toolCallId).map((a) => a.selections),
      [['implement']],
    );
    h.model.enqueue({ text: 'still here' });
    const next = await postStream(`${h.url}/api/chat`, { sessionId, message: 'and now?' });
    assert.deepEqual(first(next, 'done'), { reason: 'completed' }, `next message ended with ${errorCode(next)}`);
  });

  const emptyReplies: Array<[string, Record<string, unknown>]> = [
    [
      'reasoning only, cut by length',
      { raw: [chunk({ role: 'assistant', reasoning_content: 'Let me think' }), chunk({ reasoning_content: ' more' }, 'length')] },
    ],
    ['an empty stream', { raw: [] }],
    ['an empty stream without [DONE]', { raw: [chunk({ role: 'assistant', content: '' })], noDone: true }],
    ['a plain JSON answer with no content', { json: turnToCompletion({}, 'quirky') }],
  ];
  emptyReplies.forEach(([label, turn], i) => {
    it(`${label}: empty_reply, nothing stored, the session stays usable`, async () => {
      const sessionId = `empty-${i}`;
      h.model.enqueue(turn, { text: 'back again' });
      const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: 'hello' });
      assert.equal(errorCode(chat), 'empty_reply');
      assert.deepEqual(first(chat, 'done'), { reason: 'error' });
      const view = await getJson(`${h.url}/api/session?sessionId=${sessionId}`);
      assert.deepEqual(
        view.body.items.filter((m: { role: string }) => m.role === 'assistant'),
        [],
        'no assistant turn stored',
      );
      const next = await postStream(`${h.url}/api/chat`, { sessionId, message: 'again' });
      assert.deepEqual(first(next, 'done'), { reason: 'completed' }, `next message ended with ${errorCode(next)}`);
    });
  });

  it('a plain JSON answer to a streaming request keeps its tool call', async () => {
    h.model.enqueue(
      { json: turnToCompletion({ toolCalls: [{ id: 'call_json', name: 'ask_user', arguments: ASK }] }, 'quirky') },
      { text: 'ok' },
    );
    const { card, cont } = await askAndAnswer(h, 'plain-json');
    assert.equal(card.toolCallId, 'call_json');
    assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
  });

  it('a legacy function_call is read as one tool call', async () => {
    h.model.enqueue(
      {
        raw: [
          chunk({ role: 'assistant', function_call: { name: 'ask_user', arguments: '' } }),
          chunk({ function_call: { arguments: ASK_TEXT } }),
          chunk({}, 'function_call'),
        ],
      },
      { text: 'ok' },
    );
    const { cont } = await askAndAnswer(h, 'legacy-function-call');
    assert.deepEqual(first(cont, 'done'), { reason: 'completed' }, `continue ended with ${errorCode(cont)}`);
  });

  it('arguments sent as a JSON object are read as that object', async () => {
    h.model.enqueue(
      {
        raw: [
          chunk({
            role: 'assistant',
            tool_calls: [{ index: 0, id: 'call_obj', type: 'function', function: { name: 'ask_user', arguments: ASK } }],
          }),
          chunk({}, 'tool_calls'),
        ],
      },
      { text: 'ok' },
    );
    const { card } = await askAndAnswer(h, 'object-arguments');
    assert.deepEqual(
      card.options.map((o: { id: string }) => o.id),
      ['safe', 'implement'],
    );
  });

  it('a silent upstream ends with model_timeout and the session stays usable', async (t) => {
    // Its own server: a short idle limit, yet far above any scheduling delay of a streaming endpoint.
    const quiet = await startHarness({ modelIdleTimeoutMs: 3000 });
    t.after(() => quiet.close());
    const sessionId = 'silent';
    quiet.model.enqueue({ silent: true }, { text: 'awake' });
    const chat = await postStream(`${quiet.url}/api/chat`, { sessionId, message: 'hello' });
    assert.equal(errorCode(chat), 'model_timeout');
    assert.deepEqual(first(chat, 'done'), { reason: 'error' });
    const next = await postStream(`${quiet.url}/api/chat`, { sessionId, message: 'again' });
    assert.deepEqual(first(next, 'done'), { reason: 'completed' });
  });
});

describe('upstream text in logs', () => {
  it('an unparsable upstream line with a key in it reaches no log unmasked', async (t) => {
    const secret = 'sk-live0123456789abcdefABCDEF';
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    const saved = { error: console.error, warn: console.warn, info: console.info, debug: console.debug, log: console.log };
    Object.assign(console, { error: capture, warn: capture, info: capture, debug: capture, log: capture });
    t.after(() => Object.assign(console, saved));
    const h = await startHarness({ clientOptions: { logger: maskedLogger(), logLevel: 'debug' } });
    t.after(() => h.close());
    h.model.enqueue({ raw: [chunk({ role: 'assistant', content: '' }), `{"choices":[{"delta":{"content":"${secret}`] });
    const chat = await postStream(`${h.url}/api/chat`, { sessionId: 'log-leak', message: `my key is ${secret}` });
    assert.equal(errorCode(chat), 'model_error');
    assert.ok(lines.length > 0, 'the SDK and the loop logged something');
    assert.deepEqual(
      lines.filter((l) => l.includes(secret.slice(3))),
      [],
      'no log line holds the key',
    );
    assert.ok(!chat.raw.includes(secret.slice(3)), 'nor does the stream');
  });
});
