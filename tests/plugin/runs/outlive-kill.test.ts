/**
 * Contract §11 when the instance running a run dies: kill -9 of A while its continued run is about to call
 * the model (the answer taken and written). A follower on B, reconnecting with the last id it got from A,
 * waits for the run; B's sweep continues it (as a survivor always did), numbering on after A's last frame;
 * the follower gets the rest of the run, same run id, no gap, to its `done`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime, type AgentLoop } from '../../../plugin/loop/index.js';
import { serveKoaChat, type KoaChatServer } from '../../helpers/koa-chat-server.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import type { ScriptedModel } from '../../helpers/scripted-model.js';
import { startAskingModel } from '../../hardening/helpers/asking-model.js';
import { CRASH_SERVER, killAll, postCollect, spawnServer } from '../../hardening/helpers/server-process.js';
import { parseSse } from '../harness.js';

const NAMESPACE = 'outlive_kill';

describe('runs outlive the connection (contract §11): the running instance is killed', () => {
  let redis: RedisServer;
  let model: ScriptedModel;
  let store: PendingStore;
  let b: { server: KoaChatServer; loop: AgentLoop; close(): Promise<void> };

  before(async () => {
    redis = await startRedisServer();
    model = await startAskingModel();
    store = await openStore(redis.url, { namespace: NAMESPACE, timeoutMs: 5000 });
    const kit = createAskUserKit({
      store,
      authorize: allowAnyCaller,
      logger: memoryAuditLogger(),
      expiryTimers: false,
      runtime: agentRuntime({
        client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
        model: 'm',
        // A stall this old is a dead runner's, not a continue about to take the lease.
        resumeWaitMs: 300,
        resumeStalledAfterMs: 600,
        onError: () => {},
      }),
    });
    const server = await serveKoaChat(kit);
    b = {
      server,
      loop: kit.runtime,
      async close() {
        await server.close();
        await kit.close();
      },
    };
  });
  after(async () => {
    killAll();
    await b?.close();
    await store?.close();
    await model?.close();
    await redis?.stop();
  });

  it("a follower on B gets the rest of the run A was running when it died, numbered on from A's last frame", async () => {
    const a = await spawnServer(CRASH_SERVER, {
      ASK_USER_STORE: redis.url,
      STORE_NAMESPACE: NAMESPACE,
      OPENAI_BASE_URL: model.baseURL,
      CRASH_AT: 'after-resume-start',
      LEASE_TTL_MS: '1500',
    });
    const chat = parseSse((await postCollect(`${a.url}/api/chat`, { sessionId: 'k-1', message: 'ask ask-k1' })).text).frames;
    const card = chat.find((f) => f.event === 'user_input_required')!.data as { id: string };
    const answered = postCollect(`${a.url}/api/chat/continue`, {
      sessionId: 'k-1',
      requestId: card.id,
      selections: ['safe'],
      customInput: '',
      cancelled: false,
    });
    const [exit, reply] = await Promise.all([a.exited, answered]);
    assert.equal(exit.signal, 'SIGKILL');
    const seen = parseSse(reply.text).frames;
    assert.ok(seen.length > 0 && seen.every((f) => f.id), `A sent numbered frames before it died: ${reply.text}`);
    const last = seen.at(-1)!;
    assert.notEqual(last.event, 'done');

    // The follower reconnects to B; B's sweep continues the stalled run once A's lease has lapsed.
    const following = fetch(`${b.server.url}/api/chat/stream?sessionId=k-1`, { headers: { 'last-event-id': last.id! } });
    const sweeping = (async () => {
      for (let i = 0; i < 200; i++) {
        if ((await b.loop.sweep()).resumed > 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('B never continued the run');
    })();
    const res = await following;
    assert.equal(res.status, 200);
    const [rest] = await Promise.all([res.text().then((t) => parseSse(t).frames), sweeping]);
    const [runId, seq] = last.id!.split('.') as [string, string];
    assert.deepEqual(
      rest.map((f) => f.id),
      rest.map((_, i) => `${runId}.${Number(seq) + 1 + i}`),
    );
    assert.equal(
      rest
        .filter((f) => f.event === 'message_delta')
        .map((f) => (f.data as { text: string }).text)
        .join(''),
      'continuing with your answer',
    );
    assert.deepEqual(rest.at(-1)!.data, { reason: 'completed' });
  });
});
