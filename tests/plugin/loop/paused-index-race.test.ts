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
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { RunLeases } from '../../../plugin/runs/run-lease.js';
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

for (const variant of ['after the page', 'after the run read'] as const)
  test(`a sweep leaves the marker of a run that starts and lists itself while the sweep looks at it (${variant})`, async (t) => {
    const inner = await openStore('memory');
    t.after(() => inner.close());
    const states = new RunStates(inner);
    const index = new PausedIndex(inner);
    const elsewhere = new RunLeases(inner, { ttlMs: 60_000 }); // another instance, about to pause the run
    t.after(() => elsewhere.close());
    await states.update('s', () => ({ ...emptyRun('s'), status: 'idle' }));
    await index.add('s', { requestId: 'ask_stale' }); // left by a runner that died before unlisting
    let raced = false;
    // Right after the sweep read the page of markers (the stale one among them), the other instance takes
    // the run and lists it anew; or, second variant, right after the sweep read the run as idle.
    const race = async () => {
      raced = true;
      const hold = elsewhere.mint('s');
      await states.update('s', (cur) => ({ ...cur!, status: 'running', lease: hold.lease }));
      await index.add('s', { requestId: 'ask_new' });
    };
    let runReads = 0;
    const store = new Proxy(inner, {
      get(target, p, receiver) {
        const value = Reflect.get(target, p, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (p === 'listState' && variant === 'after the page')
          return async (...args: unknown[]) => {
            const page = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (!raced) await race();
            return page;
          };
        if (p === 'getState' && variant === 'after the run read')
          return async (key: string) => {
            const got = await (value as PendingStore['getState']).call(target, key);
            if (key === 'run:s' && ++runReads === 2 && !raced) await race();
            return got;
          };
        return value.bind(target);
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
