/**
 * Contract §11 across two instances sharing one real Redis: a follower on B gets a run running on A live,
 * same frames and ids; the stop button on B stops a run on A; 500 clients reconnecting at once with their
 * last ids all get the same consistent rest of the stream.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, openStore, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { serveKoaChat, type KoaChatServer } from '../../helpers/koa-chat-server.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { parseSse } from '../harness.js';

interface Instance {
  server: KoaChatServer;
  store: PendingStore;
  close(): Promise<void>;
}

async function instance(redis: RedisServer, model: ScriptedModel): Promise<Instance> {
  const store = await openStore(redis.url, { timeoutMs: 5000 });
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: memoryAuditLogger(),
    expiryTimers: false,
    runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm', onError: () => {} }),
  });
  const server = await serveKoaChat(kit);
  return {
    server,
    store,
    async close() {
      await server.close();
      await kit.close();
      await store.close();
    },
  };
}

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('runs outlive the connection (contract §11), two instances on Redis', () => {
  let redis: RedisServer;
  let model: ScriptedModel;
  let a: Instance;
  let b: Instance;

  before(async () => {
    redis = await startRedisServer();
    model = await startScriptedModel();
    a = await instance(redis, model);
    b = await instance(redis, model);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await model?.close();
    await redis?.stop();
  });

  it('a follower on B gets the run running on A live: the same frames, ids and bytes', async () => {
    const held = gate();
    model.enqueue({ text: 'followed across instances', chunkSize: 4, hold: held.promise });
    const calls = model.requests.length;
    const chatting = a.server
      .post('/api/chat', { sessionId: 'x-follow', message: 'go' })
      .then(async (r) => parseSse(await r.text()).frames);
    await model.waitForRequests(calls + 1);
    const follower = await fetch(`${b.server.url}/api/chat/stream?sessionId=x-follow`);
    assert.equal(follower.status, 200);
    held.open();
    const [onA, onB] = await Promise.all([chatting, follower.text().then((t) => parseSse(t).frames)]);
    assert.ok(onA.length > 3);
    assert.deepEqual(
      onB.map((f) => f.raw),
      onA.map((f) => f.raw),
    );
  });

  it('the stop button on B stops a run on A: done cancelled on A, stopped true on B, the session free at once', async () => {
    const held = gate();
    model.enqueue({ text: 'never finished', hold: held.promise }, { text: 'next' });
    const calls = model.requests.length;
    const chatting = a.server.post('/api/chat', { sessionId: 'x-stop', message: 'go' }).then(async (r) => parseSse(await r.text()).frames);
    await model.waitForRequests(calls + 1);
    const stopped = await b.server.post('/api/chat/stop', { sessionId: 'x-stop' });
    assert.deepEqual(await stopped.json(), { stopped: true });
    const frames = await chatting;
    assert.deepEqual(frames.at(-1)!.data, { reason: 'cancelled' });
    held.open();
    const next = parseSse(await (await b.server.post('/api/chat', { sessionId: 'x-stop', message: 'again' })).text()).frames;
    assert.deepEqual(next.at(-1)!.data, { reason: 'completed' });
  });

  it('500 clients reconnecting at once with their last ids, split over both instances, each get exactly the rest', async () => {
    model.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz0123456789', chunkSize: 2 });
    const frames = parseSse(await (await a.server.post('/api/chat', { sessionId: 'x-many', message: 'go' })).text()).frames;
    assert.ok(frames.length > 10);
    const clients = Array.from({ length: 500 }, (_, i) => i);
    const results = await Promise.all(
      clients.map(async (i) => {
        const at = i % (frames.length - 1);
        const server = i % 2 === 0 ? a.server : b.server;
        const res = await fetch(`${server.url}/api/chat/stream?sessionId=x-many`, { headers: { 'last-event-id': frames[at]!.id! } });
        return { at, status: res.status, raw: parseSse(await res.text()).frames.map((f) => f.raw) };
      }),
    );
    for (const { at, status, raw } of results) {
      assert.equal(status, 200);
      assert.deepEqual(
        raw,
        frames.slice(at + 1).map((f) => f.raw),
      );
    }
    const last = frames.at(-1)!.id!;
    assert.equal((await fetch(`${b.server.url}/api/chat/stream?sessionId=x-many`, { headers: { 'last-event-id': last } })).status, 204);
  });
});
