/**
 * `uiMessageSink`: a run streamed as the AI SDK's UI message stream, as a `useChat` page reads it — the
 * model's text as text parts, the question as a `data-user_input_required` part carrying the card's
 * request unchanged, the end of the run as `data-done`; the answer then continues on the kit's route.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createUIMessageStream, readUIMessageStream, type UIMessage } from 'ai';
import { openStore } from '../../../plugin/index.js';
import { uiMessageSink } from '../../../plugin/ai-sdk/index.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { mockModel, toolResultsOf } from './mock-model.js';
import { dataOf, startAiServer } from './support.js';

test('a useChat stream carries the text, the card request and the pause; the card answer continues the run', async (t) => {
  const store = await openStore('memory');
  const mock = mockModel([{ text: 'One question first.', toolCalls: [askSingle('c-ui')] }, { text: 'Thanks.' }]);
  const server = await startAiServer(store, { model: mock.model });
  t.after(async () => (await server.close(), await store.close()));

  const stream = createUIMessageStream({
    execute: ({ writer }) => server.runtime.chat({ caller: undefined, sessionId: 'ui-1', message: 'plan it', sse: uiMessageSink(writer) }),
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  const parts = last!.parts as Array<{ type: string; id?: string; text?: string; data?: any }>;
  assert.deepEqual(
    parts.filter((p) => p.type === 'text').map((p) => p.text),
    ['One question first.'],
  );
  const ask = parts.find((p) => p.type === 'data-user_input_required')!;
  assert.equal(ask.data.toolCallId, 'c-ui');
  assert.equal(ask.id, ask.data.id, 'keyed by the request id');
  assert.deepEqual(parts.find((p) => p.type === 'data-done')?.data, { reason: 'paused' });

  const cont = await server.answer({ sessionId: 'ui-1', requestId: ask.data.id, selections: ['safe'] });
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  assert.deepEqual(toolResultsOf(mock.prompts[1]!)[0]!.output, {
    type: 'text',
    value: '{"selections":["safe"],"customInput":"","cancelled":false}',
  });
});
