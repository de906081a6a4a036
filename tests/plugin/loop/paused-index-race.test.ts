/**
 * The paused-run index (what a sweep walks) must never lose a session whose run paused again while
 * someone was unlisting it: markers are removed by the version they were written with, and a sweep that
 * finds a marker of a run that went on reads the run again after the marker before removing it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createAskUserKit, allowAnyCaller, openStore, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { PausedIndex } from '../../../plugin/loop/paused-index.js';
import { RunLeases } from '../../../plugin/loop/run-lease.js';
import { RunStates, emptyRun } from '../../../plugin/loop/run-state.js';

test('removing an older marker version leaves a newer one', async (t) => {
  const store = await openStore('memory');
  t.after(() => store.close());
  const index = new PausedIndex(store);
  const v1 = (await index.add('s', { requestId: 'ask_a' }))!;
  const v2 = (await index.add('s', { requestId: 'ask_b' }))!;
  await index.remove('s', v1);
  assert.deepEqual(await index.list(), ['s'], 'the newer pause stays listed');
  await index.remove('s', v2);
  assert.deepEqual(await index.list(), []);
});

test('a sweep leaves the marker of a run that starts and lists itself while the sweep looks at it', async (t) => {
  const inner = await openStore('memory');
  t.after(() => inner.close());
  const states = new RunStates(inner);
  const index = new PausedIndex(inner);
  const elsewhere = new RunLeases(inner, { ttlMs: 60_000 }); // another instance, about to pause the run
  t.after(() => elsewhere.close());
  await states.update('s', () => ({ ...emptyRun('s'), status: 'idle' }));
  await index.add('s', { requestId: 'ask_stale' }); // left by a runner that died before unlisting
  let raced = false;
  // When the sweep reads the marker, the other instance has just taken the run and listed it anew.
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (p !== 'getState' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (key: string) => {
        if (key === 'paused:s' && !raced) {
          raced = true;
          const hold = elsewhere.mint('s');
          await states.update('s', (cur) => ({ ...cur!, status: 'running', lease: hold.lease }));
          await index.add('s', { requestId: 'ask_new' });
        }
        return (value as PendingStore['getState']).call(target, key);
      };
    },
  });
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    runtime: agentRuntime({ client: new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' }), model: 'm' }),
  });
  t.after(() => kit.close());
  const report = await kit.runtime.sweep();
  assert.equal(report.checked, 1);
  assert.equal(raced, true, 'the interleaving happened');
  assert.deepEqual(await index.list(), ['s'], 'the run about to pause is still found by the next sweep');
  assert.equal((await index.marker('s'))!.value.requestId, 'ask_new');
});

test('a sweep drops the marker a dead runner left on a run that went on', async (t) => {
  const store = await openStore('memory');
  t.after(() => store.close());
  await new RunStates(store).update('s', () => ({ ...emptyRun('s'), status: 'idle' }));
  await new PausedIndex(store).add('s', { requestId: 'ask_stale' });
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    runtime: agentRuntime({ client: new OpenAI({ apiKey: 'unused', baseURL: 'http://127.0.0.1:9' }), model: 'm' }),
  });
  t.after(() => kit.close());
  assert.equal((await kit.runtime.sweep()).checked, 1);
  assert.deepEqual(await new PausedIndex(store).list(), []);
});
