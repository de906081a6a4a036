/**
 * The demo on ASK_USER_RUNTIME=ai-sdk: the kit's Vercel AI SDK runtime, through the AI SDK's
 * OpenAI-compatible provider against the scripted model, serves the same routes, card and history redraw:
 * ask, answer, resume with the exact ToolResult once; and kill -9 then restart on SQLite resumes exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerBody, first, getJson, postStream, shape } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

const exact = '{"selections":["safe"],"customInput":"","cancelled":false}';

test('ask, answer and resume on the AI SDK runtime; the history redraws as on the loop', async (t) => {
  const h = await startHarness({
    runtime: 'ai-sdk',
    turns: [{ text: 'One question.', toolCalls: [askSingle('call_ai1')] }, { text: 'Done.' }],
  });
  t.after(() => h.close());
  assert.equal((await getJson(`${h.url}/api/health`)).body.runtime, 'ai-sdk');
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-ai', message: 'start' });
  assert.deepEqual(shape(chat).slice(-2), ['user_input_required', 'done']);
  const ask = first(chat, 'user_input_required');
  assert.equal(ask.toolCallId, 'call_ai1');
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody('s-ai', ask.id, ['safe']));
  assert.equal(cont.status, 200);
  assert.deepEqual(first(cont, 'tool_result'), { toolCallId: 'call_ai1', name: 'ask_user', content: exact, isError: false });
  assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
  assert.equal(h.model.requests.length, 2);
  assert.deepEqual(h.model.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_ai1', content: exact });
  const view = (await getJson(`${h.url}/api/session?sessionId=s-ai`)).body;
  assert.equal(view.status, 'idle');
  assert.deepEqual(
    view.items.filter((i: any) => i.role === 'tool').map((i: any) => [i.toolCallId, i.text]),
    [['call_ai1', exact]],
  );
});
