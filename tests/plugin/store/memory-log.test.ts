import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryBackend } from '../../../plugin/store/memory-backend.js';
import { DEFAULT_LOG_LIMITS } from '../../../plugin/store/event-log.js';
import { MemoryLog } from '../../../plugin/store/memory-log.js';
import { logContract, logPairOf } from './log-contract.js';

// One Map plays the shared store: two memory backends on it share one log, as they share their rows.
logContract('memory', async () => {
  const map = new Map<string, string>();
  const one = createMemoryBackend({ map });
  const two = createMemoryBackend({ map });
  return logPairOf(one, two);
});

test('the memory log drops a session past its window on collect, read or not', async () => {
  const log = MemoryLog.of({});
  await log.append('k', [{ runId: 'r', seq: 1, event: 'done', data: '{}' }], { ...DEFAULT_LOG_LIMITS, windowMs: 1 });
  await log.append('kept', [{ runId: 'r', seq: 1, event: 'done', data: '{}' }], DEFAULT_LOG_LIMITS);
  await new Promise((resolve) => setTimeout(resolve, 5));
  log.collect();
  assert.equal(await log.last('k'), undefined);
  assert.equal((await log.last('kept'))?.seq, 1);
});
