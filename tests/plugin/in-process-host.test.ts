/**
 * The in-process host: a host server whose loop lives in memory pauses on `kit.waitForAnswer` and is
 * resumed by the continue route. After a restart the card survives in a persistent store but the run
 * does not, which the kit says honestly (resumable: false, 409 not_resumable).
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import {
  allowAnyCaller,
  createAskUserKit,
  memoryAuditLogger,
  openStore,
  type AskUserKit,
  type InProcessAnswer,
  type PendingStore,
} from '../../plugin/index.js';
import { createInProcessHost, InProcessHostError } from '../../plugin/core/in-process-host.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { answer, errorOf, parseSse, readSse, recordingHost, SINGLE } from './harness.js';
import { koaRoutes, koaSse } from '../../plugin/adapters/koa.js';

interface InMemoryServer {
  url: string;
  kit: AskUserKit;
  /** What each paused run received when it woke up. */
  woke: InProcessAnswer[];
  runs: Map<string, AbortController>;
  close(): Promise<void>;
}

/** A host app with its own in-memory loop: POST /api/chat asks once, pauses, and on an answer says what it got. */
async function start(store: PendingStore): Promise<InMemoryServer> {
  const kit = createAskUserKit({ store, logger: memoryAuditLogger(), expiryTimers: false, heartbeatMs: 0, authorize: allowAnyCaller });
  const woke: InProcessAnswer[] = [];
  const runs = new Map<string, AbortController>();
  const app = new Koa();
  app.silent = true;
  app.use(koaRoutes(kit));
  app.use(async (ctx, next) => {
    if (ctx.path !== '/api/chat') return next();
    const sessionId = String(ctx.query.sessionId);
    const sse = koaSse(kit, ctx);
    await kit.supersede(sessionId);
    const turn = await kit.intercept(
      [{ id: 'call_q', type: 'function', function: { name: 'ask_user', arguments: JSON.stringify(SINGLE) } }],
      { sessionId, sse },
    );
    const requestId = turn.interaction!.requestId;
    const run = new AbortController();
    runs.set(requestId, run);
    kit.waitForAnswer(requestId, run.signal).then(
      (woken) => {
        woke.push(woken);
        if (woken.status !== 'answered' || !woken.sse) return;
        woken.sse.send('message_delta', { text: `model saw ${woken.toolResultContent}` });
        if (ctx.query.hang === undefined) woken.sse.send('done', { reason: 'completed' });
      },
      () => {},
    );
    sse.send('done', { reason: 'paused' });
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kit,
    woke,
    runs,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await kit.close();
    },
  };
}

const post = (url: string, body: unknown) =>
  fetch(`${url}/api/chat/continue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chat = async (s: InMemoryServer, sessionId: string, query = '') => {
  const { frames } = await readSse(await fetch(`${s.url}/api/chat?sessionId=${sessionId}${query}`, { method: 'POST' }));
  assert.deepEqual(
    frames.map((f) => f.event),
    ['user_input_required', 'done'],
  );
  return frames[0]!.data as { id: string; toolCallId: string; resumable: boolean };
};
const pending = async (s: InMemoryServer, sessionId: string) =>
  ((await (await fetch(`${s.url}/api/interactions/pending?sessionId=${sessionId}`)).json()) as any).pending;

describe('in-process host', () => {
  let dir: TempDir;
  let store: PendingStore;
  let s: InMemoryServer;
  beforeEach(async () => {
    dir = await makeTempDir();
    store = await openStore(`sqlite://${dir.file('kit.db')}`);
    s = await start(store);
  });
  afterEach(async () => {
    await s.close();
    await store.close();
    await dir.remove();
  });

  it('answer wakes the waiting loop, which continues on the continue stream', async () => {
    const asked = await chat(s, 's1');
    assert.equal(asked.resumable, true);
    assert.equal((await pending(s, 's1')).resumable, true);
    const res = await post(s.url, answer('s1', asked.id));
    assert.equal(res.status, 200);
    const { frames } = await readSse(res);
    assert.deepEqual(
      frames.map((f) => f.event),
      ['interaction_resolved', 'tool_result', 'message_delta', 'done'],
    );
    const content = '{"selections":["safe"],"customInput":"","cancelled":false}';
    assert.deepEqual(frames[1]!.data, { toolCallId: 'call_q', name: 'ask_user', content, isError: false });
    assert.deepEqual(frames[2]!.data, { text: `model saw ${content}` });
    assert.deepEqual(frames[3]!.data, { reason: 'completed' });
    assert.equal(s.woke.length, 1);
    assert.equal(s.woke[0]!.status, 'answered');
    assert.equal((await store.get(asked.id))?.toolResultWritten, true);
  });

  it('cancel wakes the loop with status cancelled; the stream ends with done cancelled and no model output', async () => {
    const asked = await chat(s, 's1');
    const { frames } = await readSse(await post(s.url, answer('s1', asked.id, { cancelled: true })));
    assert.deepEqual(
      frames.map((f) => f.event),
      ['interaction_resolved', 'tool_result', 'done'],
    );
    assert.deepEqual(frames[2]!.data, { reason: 'cancelled' });
    assert.equal(s.woke[0]!.status, 'cancelled');
    assert.equal(s.woke[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true}');
  });

  it('a new message supersedes: the old loop wakes with the superseded ToolResult and no stream', async () => {
    const first = await chat(s, 's1');
    const second = await chat(s, 's1');
    assert.notEqual(first.id, second.id);
    assert.equal(s.woke.length, 1);
    assert.equal(s.woke[0]!.status, 'superseded');
    assert.equal(s.woke[0]!.sse, undefined);
    assert.equal(s.woke[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}');
  });

  it('after a restart the card survives but says resumable: false, and continue is 409 not_resumable', async () => {
    const asked = await chat(s, 's1');
    await s.close();
    s = await start(store); // same persistent store, fresh process state: no waiter
    const card = await pending(s, 's1');
    assert.equal(card.id, asked.id);
    assert.equal(card.status, 'pending');
    assert.equal(card.resumable, false);
    const r = await errorOf(await post(s.url, answer('s1', asked.id)));
    assert.deepEqual([r.status, r.code], [409, 'not_resumable']);
    assert.equal((await store.get(asked.id))?.status, 'pending', 'nothing consumed');
  });

  it('a withdrawn wait (run aborted) makes the question not resumable', async () => {
    const asked = await chat(s, 's1');
    s.runs.get(asked.id)!.abort();
    assert.equal((await pending(s, 's1')).resumable, false);
    assert.equal((await post(s.url, answer('s1', asked.id))).status, 409);
  });

  it('a client leaving mid-run aborts the stream signal the loop holds', async () => {
    const asked = await chat(s, 's2', '&hang');
    const controller = new AbortController();
    const res = await fetch(`${s.url}/api/chat/continue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(answer('s2', asked.id)),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('message_delta')) text += new TextDecoder().decode((await reader.read()).value);
    assert.deepEqual(
      parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)).frames.map((f) => f.event),
      ['interaction_resolved', 'tool_result', 'message_delta'],
    );
    controller.abort();
    const loopSse = s.woke[0]!.sse!;
    while (!loopSse.signal.aborted) await new Promise((r) => setTimeout(r, 5));
    assert.equal(loopSse.closed, true);
  });

  it('one waiter per question; a custom host has no waitForAnswer', async () => {
    const asked = await chat(s, 's1');
    await assert.rejects(s.kit.waitForAnswer(asked.id), (e: unknown) => e instanceof InProcessHostError && e.code === 'already_waiting');
    const other = createAskUserKit({ authorize: allowAnyCaller, store, host: recordingHost(() => store), logger: memoryAuditLogger() });
    await assert.rejects(other.waitForAnswer(asked.id), /in-process host/);
    await other.close();
  });

  it('a waiter gone between the resumable check and the claim: error and done, no tool_result announced', async () => {
    const host = createInProcessHost({ store });
    const asked = await chat(s, 's-gone');
    const record = (await store.get(asked.id))!;
    const events: string[] = [];
    const controller = new AbortController();
    const sse = { send: (event: string) => void events.push(event), comment() {}, end() {}, signal: controller.signal, closed: false };
    await host.resume({
      record,
      answer: { selections: ['safe'], customInput: '', cancelled: false },
      toolResultContent: '{}',
      sse: sse as never,
    });
    assert.deepEqual(events, ['error', 'done']);
  });
});
