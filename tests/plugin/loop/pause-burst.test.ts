/**
 * Many sessions pausing at once all write the one paused-run index key: every run must still pause with
 * its card (user_input_required, done paused), and the index must list every one of them for a sweep.
 * On SQLite, where each write takes a commit, 150 at once used to run the index out of retries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createAskUserKit } from '../../../plugin/core/ask-user-kit.js';
import { memoryAuditLogger } from '../../../plugin/core/audit.js';
import { openStore } from '../../../plugin/store/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { startScriptedModel } from '../../helpers/scripted-model.js';
import { recordingSink } from '../../helpers/recording-sink.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { allowAnyCaller } from '../../../plugin/core/authorization.js';

const SESSIONS = 150;

test(`${SESSIONS} sessions pausing at once: every one shows its card and is in the paused index`, async (t) => {
  const model = await startScriptedModel({ fallback: { toolCalls: [askSingle()] } });
  const dir = mkdtempSync(join(tmpdir(), 'ask-user-burst-'));
  // What is tested is the index under contention, not how fast a loaded machine commits: 150 sessions'
  // writes queue on one connection, which on 2 busy cores can take longer than the default 1.5 s per call.
  const store = await openStore(`sqlite://${join(dir, 'burst.db')}`, { timeoutMs: 30_000 });
  const errors: unknown[] = [];
  const kit = createAskUserKit({
    authorize: allowAnyCaller,
    store,
    logger: memoryAuditLogger(),
    runtime: agentRuntime({
      client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
      model: 'm',
      onError: (e) => errors.push(e),
    }),
  });
  const loop = kit.runtime;
  t.after(async () => (await kit.close(), await model.close(), await store.close(), rmSync(dir, { recursive: true, force: true })));
  const sinks = await Promise.all(
    Array.from({ length: SESSIONS }, async (_, i) => {
      const sse = recordingSink();
      await loop.chat({ caller: undefined, sessionId: `burst-${i}`, message: 'ask me', sse });
      return sse;
    }),
  );
  const ends = sinks.map((s) => JSON.stringify(s.events.at(-1)?.data));
  assert.deepEqual(
    ends.filter((e) => e !== '{"reason":"paused"}'),
    [],
    'every run paused',
  );
  assert.equal(sinks.filter((s) => s.events.some((e) => e.event === 'user_input_required')).length, SESSIONS);
  assert.deepEqual(errors, []);
  assert.equal((await new PausedIndex(store).list()).length, SESSIONS, 'the index lists every paused run');
});
