/**
 * kill -9 while the run held its session lease (after the paused state was saved), with the loop's
 * default 15 s lease, then an immediate restart and the user's answer. docs/protocol.md §6: "with persisted
 * run state, the run resumes exactly where it paused". The lease of the dead process must not turn the
 * accepted answer into a `session_busy` error — the answer is consumed by then, so the user cannot retry,
 * and the run would stay stopped until the lease lapses and the user writes again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSse } from '../plugin/harness.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';
import { startRestartableServer } from '../helpers/restartable-server.js';
import { startAskingModel } from './helpers/asking-model.js';
import { deliveries } from './helpers/deliveries.js';
import { CRASH_SERVER, exitWithin, killAll, postCollect, spawnServer } from './helpers/server-process.js';

/** createAgentLoop's default leaseTtlMs, which createDemoApp (and so the demo server) always uses. */
const DEFAULT_LEASE_TTL_MS = '15000';

describe('a session lease held by a killed process', () => {
  let dir: TempDir;
  let model: ScriptedModel;
  before(async () => {
    dir = await makeTempDir('ask-user-lease-');
    model = await startAskingModel();
  });
  after(async () => {
    killAll();
    await model.close();
    await dir.remove();
  });

  it('does not turn the answer given right after the restart into session_busy: the run continues', async () => {
    const server = await startRestartableServer({
      store: `sqlite://${dir.file('lease.db')}`,
      env: { STORE_NAMESPACE: 'lease', OPENAI_BASE_URL: model.baseURL, LEASE_TTL_MS: DEFAULT_LEASE_TTL_MS },
      firstEnv: { CRASH_AT: 'after-persist' },
      start: (env) => spawnServer(CRASH_SERVER, env),
    });
    await postCollect(`${server.url}/api/chat`, { sessionId: 'lease', message: 'ask ask-lease' });
    assert.equal((await exitWithin(server.current, 20_000)).signal, 'SIGKILL');

    await server.restart();
    try {
      const pending = (await (await fetch(`${server.url}/api/interactions/pending?sessionId=lease`)).json()) as {
        pending: { id: string; resumable: boolean };
      };
      assert.equal(pending.pending.resumable, true, 'the card says the run can be resumed');
      const cont = await postCollect(`${server.url}/api/chat/continue`, {
        sessionId: 'lease',
        requestId: pending.pending.id,
        selections: ['safe'],
        customInput: '',
        cancelled: false,
      });
      assert.equal(cont.status, 200);
      const frames = parseSse(cont.text).frames;
      assert.deepEqual(
        frames.filter((f) => f.event === 'error').map((f) => f.data),
        [],
        'no error after the answer was accepted',
      );
      assert.deepEqual(frames.at(-1)?.data, { reason: 'completed' });
      assert.equal(deliveries(model.requests, 'ask-lease').length, 1, 'the model continued from the answer');
    } finally {
      await server.stop();
    }
  });
});
