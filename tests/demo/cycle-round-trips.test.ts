/**
 * The cost of one question in store round trips: a full cycle through the demo's HTTP API (the message
 * that asks, the answer that continues) reads and writes the store at most 15 times, on a new session
 * and on one that already ran a turn. Counted at the backend, below every cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKeyedStore } from '../../plugin/store/keyed-store.js';
import { createMemoryBackend } from '../../plugin/store/memory-backend.js';
import { countingBackend } from '../helpers/counting-backend.js';
import { answerBody, first, postStream } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

const BUDGET = 15;

test(`a full cycle costs at most ${BUDGET} store round trips`, async (t) => {
  const { wrapped, take } = countingBackend(createMemoryBackend());
  const store = createKeyedStore(wrapped);
  const h = await startHarness({ store, fallback: { toolCalls: [askSingle('call_rt')] } });
  t.after(async () => {
    await h.close();
    await store.close();
  });
  const cycle = async (sessionId: string) => {
    h.model.enqueue({ toolCalls: [askSingle(`call_${sessionId}`)] }, { text: 'done' });
    const ask = first(await postStream(`${h.url}/api/chat`, { sessionId, message: 'go' }), 'user_input_required');
    const done = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, ask.id, ['safe']));
    assert.deepEqual(first(done, 'done'), { reason: 'completed' });
  };
  await cycle('s-warm'); // the first cycle of the process also binds the browser and warms nothing else
  take();
  await cycle('s-new');
  const fresh = take();
  t.diagnostic(`new session: ${fresh.total} ${JSON.stringify(fresh.seen)}`);
  assert.ok(fresh.total <= BUDGET, `a new session: ${fresh.total} round trips ${JSON.stringify(fresh.seen)}`);
  await cycle('s-new');
  const again = take();
  t.diagnostic(`second turn: ${again.total} ${JSON.stringify(again.seen)}`);
  assert.ok(again.total <= BUDGET, `a session's second turn: ${again.total} round trips ${JSON.stringify(again.seen)}`);
});
