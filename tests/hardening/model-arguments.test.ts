/**
 * Interception of absurd `ask_user` calls through the demo app's real loop and SSE stream: the model
 * gets an error ToolResult naming the problem (so it can call again), the user sees nothing, the store
 * holds nothing, and the error text stays small whatever the model sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../demo/harness.js';
import { all, first, postStream } from '../demo/sse-client.js';
import { BAD_ARGUMENTS } from './fixtures/model-arguments.js';

/** A refusal the model reads back; it must not echo megabytes of its own arguments. */
const MAX_ERROR_CHARS = 4096;

describe('ask_user arguments no user may see', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  BAD_ARGUMENTS.forEach((row, i) => {
    it(`${row.name}: error ToolResult to the model, nothing stored, nothing shown`, async () => {
      const sessionId = `args-${i}`;
      const callId = `call_args_${i}`;
      h.model.enqueue({ toolCalls: [{ id: callId, name: 'ask_user', arguments: row.arguments }] }, { text: 'I will ask properly.' });
      const before = h.model.requests.length;
      const stream = await postStream(`${h.url}/api/chat`, { sessionId, message: 'start' });
      assert.equal(stream.status, 200);
      assert.deepEqual(all(stream, 'user_input_required'), [], 'nothing shown to the user');
      const results = all(stream, 'tool_result').filter((r) => r.toolCallId === callId);
      assert.equal(results.length, 1, 'one ToolResult for the refused call');
      assert.equal(results[0].isError, true);
      assert.match(results[0].content, /^ask_user was not shown/);
      assert.match(results[0].content, row.mentions);
      assert.ok(results[0].content.length <= MAX_ERROR_CHARS, `error ToolResult is ${results[0].content.length} characters`);
      assert.deepEqual(first(stream, 'done'), { reason: 'completed' });

      // The model got the same refusal as a tool message, and was called again.
      assert.equal(h.model.requests.length, before + 2);
      const tool = h.model.requests[before + 1]!.messages.filter((m) => m.role === 'tool' && m.tool_call_id === callId);
      assert.equal(tool.length, 1);
      assert.equal(tool[0]!.content, results[0].content);

      // Nothing stored or pending, and no `asked` in the audit trail.
      assert.equal(await h.store.currentOf(sessionId), undefined);
      const pending = (await (await fetch(`${h.url}/api/interactions/pending?sessionId=${sessionId}`)).json()) as { pending: unknown };
      assert.equal(pending.pending, null);
      const audit = h.audit.filter((e) => e.sessionId === sessionId);
      assert.deepEqual(
        audit.map((e) => [e.event, e.reason]),
        [['rejected', 'invalid_arguments']],
      );
      assert.ok((audit[0]!.detail ?? '').length <= MAX_ERROR_CHARS, 'the audit detail is small too');
    });
  });
});
