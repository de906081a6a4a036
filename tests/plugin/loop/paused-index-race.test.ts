/**
 * The paused-run index (what a startup sweep walks) must not lose a session whose run paused again while a
 * roll-forward was removing it: the roll-forward read the run as not paused, the run then paused and
 * added itself, and the roll-forward's removal landed after that add.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type PendingStore } from '../../../plugin/index.js';
import { PausedIndex } from '../../../plugin/loop/paused-index.js';
import { RunStates, emptyRun } from '../../../plugin/loop/run-state.js';
import { rollForwardRun } from '../../../plugin/loop/tool-result-writer.js';

test('a run that pauses during a roll-forward’s index removal stays in the index', async (t) => {
  const inner = await openStore('memory');
  t.after(() => inner.close());
  const states = new RunStates(inner);
  const index = new PausedIndex(inner);
  await states.update('s', () => ({ ...emptyRun('s'), status: 'idle' }));
  let raced = false;
  // The first read of the index inside the removal lets the other runner pause and add itself first.
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (p !== 'getState' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (key: string) => {
        if (key === 'runs:paused' && !raced) {
          raced = true;
          await states.update('s', (cur) => ({
            ...cur!,
            status: 'paused',
            paused: { requestId: 'ask_xxxxxxxxxxxxxxxxxxxxxx', toolCallId: 'c1', round: 1 },
          }));
          await index.add('s');
        }
        return (value as PendingStore['getState']).call(target, key);
      };
    },
  });
  const result = await rollForwardRun({ store, states: new RunStates(store), index: new PausedIndex(store) }, 's');
  assert.equal(result.kind, 'nothing');
  assert.equal(raced, true, 'the interleaving happened');
  assert.deepEqual(await index.list(), ['s'], 'the paused run is still found by the next sweep');
});
