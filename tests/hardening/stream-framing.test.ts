/**
 * Model-chosen strings that look like SSE framing (`\n`, `\r`, `data:`, `event:`) in the toolCallId,
 * option ids, title and labels must not split or forge events: the raw chat stream carries exactly one
 * `user_input_required` whose parsed data holds the original strings, and they survive the round trip
 * through GET pending, continue, the ToolResult and the model's history. Lone surrogates ride along:
 * JSON.stringify escapes them (`\ud800`), so they never break the UTF-8 stream.
 *
 * Lone surrogates in a text answer are accepted (200): the rules ask only for non-blank text
 * (plugin/contract/answer-rules.ts), and the ToolResult passes the text on as given, escaped in its JSON.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSse } from '../plugin/harness.js';
import { startHarness, type Harness } from '../demo/harness.js';
import { all, answerBody, first, postStream } from '../demo/sse-client.js';

const CALL_ID = 'call_\n\ndata: {"reason":"completed"}\r\nevent: done\r\r:ping\n';
const TITLE = 'Line one\n\nevent: done\ndata: {"reason":"completed"}\n\nretry: 1\r\nid: 7\u2028\u2029 end \ud800';
const OPTIONS = [
  { id: 'a\nb', label: 'A\r\n\r\nevent: error' },
  { id: 'data: x', label: 'data: {"x":1}', description: '\n\n: comment\n\n' },
  { id: 'x\ry', label: 'carriage return' },
  { id: 'event: done', label: 'lone \udfff low' },
];
const ARGS = { title: TITLE, description: 'desc\r\rdata: y', mode: 'single', allowCustom: true, submitLabel: 'Go\n', options: OPTIONS };

/** Every line of a well-framed stream is blank, a comment, or one of the fields this server writes (§3, §11). */
function assertFramed(raw: string) {
  for (const line of raw.split('\n')) {
    assert.ok(
      line === '' ||
        line.startsWith(': ') ||
        /^event: [a-z_]+$/.test(line) ||
        line.startsWith('data: {') ||
        line === 'retry: 1000' ||
        /^id: [A-Za-z0-9_-]{1,64}\.[1-9][0-9]*$/.test(line),
      `stray line ${JSON.stringify(line)}`,
    );
  }
  assert.ok(!raw.includes('\r'), 'no CR anywhere in the stream');
}

describe('SSE framing under hostile strings', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('one user_input_required with the original strings, and they survive GET pending, continue and the model history', async () => {
    h.model.enqueue({ toolCalls: [{ id: CALL_ID, name: 'ask_user', arguments: ARGS }] }, { text: 'thanks' });
    const chat = await postStream(`${h.url}/api/chat`, { sessionId: 'framing', message: 'start' });
    assertFramed(chat.raw);
    assert.equal(chat.raw.match(/^event: user_input_required$/gm)?.length, 1, 'exactly one event line');
    assert.equal(chat.raw.match(/^event: done$/gm)?.length, 1, 'exactly one done');
    // Two independent parsers agree: the strict one in the plugin harness and eventsource-parser.
    const strict = parseSse(chat.raw).frames.filter((f) => f.event === 'user_input_required');
    const events = all(chat, 'user_input_required');
    assert.equal(strict.length, 1);
    assert.equal(events.length, 1);
    for (const data of [strict[0]!.data as Record<string, unknown>, events[0]]) {
      assert.equal(data.toolCallId, CALL_ID);
      assert.equal(data.title, TITLE);
      assert.equal(data.description, ARGS.description);
      assert.equal(data.submitLabel, ARGS.submitLabel);
      assert.deepEqual(data.options, OPTIONS);
    }
    assert.deepEqual(first(chat, 'done'), { reason: 'paused' });

    const pending = (await (await fetch(`${h.url}/api/interactions/pending?sessionId=framing`)).json()) as {
      pending: Record<string, unknown>;
    };
    assert.equal(pending.pending.toolCallId, CALL_ID);
    assert.equal(pending.pending.title, TITLE);
    assert.deepEqual(pending.pending.options, OPTIONS);

    const typed = 'x\r\ny\n\ndata: z\r';
    const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('framing', events[0].id, ['a\nb'], typed));
    assert.equal(cont.status, 200);
    assertFramed(cont.raw);
    const expected = JSON.stringify({ selections: ['a\nb'], customInput: typed, cancelled: false });
    const results = all(cont, 'tool_result');
    assert.deepEqual(results, [{ toolCallId: CALL_ID, name: 'ask_user', content: expected, isError: false }]);
    assert.deepEqual(first(cont, 'done'), { reason: 'completed' });

    const last = h.model.requests.at(-1)!;
    const tools = last.messages.filter((m) => m.role === 'tool' && m.tool_call_id === CALL_ID);
    assert.deepEqual(
      tools.map((m) => m.content),
      [expected],
      'the model got the answer once, under the original id',
    );
    const asked = last.messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls)) as unknown as {
      tool_calls: Array<{ id: string }>;
    };
    assert.equal(asked.tool_calls[0]!.id, CALL_ID);
  });

  for (const [name, text] of [
    ['a lone high surrogate', '\ud800'],
    ['a reversed pair', '\udfff\ud800'],
    ['a surrogate beside a real pair', 'ok \ud83d\ude00 \ud83d'],
  ] as const) {
    it(`a text answer of ${name} is accepted (200) and passed on escaped, not mangled`, async () => {
      const sessionId = `surrogate-${name.length}`;
      h.model.enqueue(
        { toolCalls: [{ id: `call_s${name.length}`, name: 'ask_user', arguments: { title: 'Say something', mode: 'text' } }] },
        { text: 'ok' },
      );
      const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: 'start' });
      const ask = first(chat, 'user_input_required');
      const cont = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, ask.id, [], text));
      assert.equal(cont.status, 200);
      // A server writing a lone surrogate raw would emit bytes that decode to U+FFFD.
      assert.ok(!cont.raw.includes('\ufffd'), 'the stream is well-formed UTF-8');
      const content = first(cont, 'tool_result').content as string;
      assert.equal((JSON.parse(content) as { customInput: string }).customInput, text, 'the exact code units come back');
      assert.equal(first(cont, 'interaction_resolved').customInputLength, text.length);
      const tool = h.model.requests.at(-1)!.messages.find((m) => m.role === 'tool' && m.tool_call_id === `call_s${name.length}`)!;
      assert.equal((JSON.parse(tool.content as string) as { customInput: string }).customInput, text);
    });
  }
});
