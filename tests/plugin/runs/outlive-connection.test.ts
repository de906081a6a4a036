/**
 * Contract §11 over HTTP on one instance (memory store, the plugin loop, Koa): frame ids and `retry`, a
 * run that goes on when its client leaves, `GET /api/chat/stream` (replay after an id, follow live, 204,
 * 410, 400, 403), `POST /api/chat/stop` (a run in flight, an open card, nothing) and `Idempotency-Key`.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ParameterizedContext } from 'koa';
import { createAskUserKit, memoryAuditLogger, openStore, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { serveKoaChat, type KoaChatServer } from '../../helpers/koa-chat-server.js';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { parseSse, type SseFrame } from '../harness.js';

const ID = /^([A-Za-z0-9_-]{1,64})\.([1-9][0-9]*)$/;
const seqOf = (f: SseFrame) => Number(ID.exec(f.id!)![2]);
const runOf = (f: SseFrame) => ID.exec(f.id!)![1];

/** A deferred the scripted model waits on, so a run is held in flight. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Reads a stream's body until `until` holds for the text so far, then aborts the request (the client leaves). */
async function readUntil(res: Response, until: (text: string) => boolean, controller: AbortController): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += value;
    if (until(text)) {
      controller.abort();
      await reader.cancel().catch(() => undefined);
      return text;
    }
  }
}

describe('runs outlive the connection (contract §11), one instance', () => {
  let model: ScriptedModel;
  let store: PendingStore;
  let server: KoaChatServer;
  let kit: ReturnType<typeof makeKit>;

  const makeKit = () =>
    createAskUserKit<ParameterizedContext>({
      store,
      // The owner is whoever sends `x-user: owner`; any other caller is a stranger.
      authorize: (ctx) => ctx.get('x-user') !== 'stranger',
      logger: memoryAuditLogger(),
      expiryTimers: false,
      runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm', onError: () => {} }),
    });

  const stream = (sessionId: string, lastEventId?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/chat/stream?sessionId=${sessionId}`, {
      headers: { ...(lastEventId ? { 'last-event-id': lastEventId } : {}), ...headers },
    });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  before(async () => {
    model = await startScriptedModel();
  });
  after(async () => {
    await model.close();
  });
  beforeEach(async () => {
    store = await openStore('memory');
    kit = makeKit();
    server = await serveKoaChat(kit);
  });
  afterEach(async () => {
    await server.close();
    await kit.close();
    await store.close();
  });

  it('every frame has the id <runId>.<seq> from 1 without gaps, after retry: 1000; a new chat is a new run', async () => {
    model.enqueue({ text: 'hello there, friend', chunkSize: 4 }, { text: 'again' });
    const first = parseSse(await (await post('/api/chat', { sessionId: 's-ids', message: 'hi' })).text());
    assert.ok(first.text.startsWith('retry: 1000\n\n'));
    assert.equal(first.retry, 1000);
    assert.ok(first.frames.length > 3);
    assert.deepEqual(
      first.frames.map(seqOf),
      first.frames.map((_, i) => i + 1),
    );
    assert.equal(new Set(first.frames.map(runOf)).size, 1);
    assert.equal(first.frames.at(-1)!.event, 'done');
    const second = parseSse(await (await post('/api/chat', { sessionId: 's-ids', message: 'more' })).text());
    assert.notEqual(runOf(second.frames[0]!), runOf(first.frames[0]!));
    assert.equal(seqOf(second.frames[0]!), 1);
  });

  it('the continue of an answer numbers on in the run that asked; a paused run is not in flight (204)', async () => {
    model.enqueue({ text: 'one moment', toolCalls: [askSingle()] }, { text: 'done with a' });
    const chat = parseSse(await (await post('/api/chat', { sessionId: 's-cont', message: 'go' })).text()).frames;
    const card = chat.find((f) => f.event === 'user_input_required')!;
    const paused = chat.at(-1)!;
    assert.deepEqual(paused.data, { reason: 'paused' });
    assert.equal(seqOf(paused), seqOf(card) + 1);
    assert.equal((await stream('s-cont', paused.id)).status, 204);
    assert.equal((await stream('s-cont')).status, 204);
    const requestId = (card.data as { id: string }).id;
    const cont = parseSse(
      await (
        await post('/api/chat/continue', { sessionId: 's-cont', requestId, selections: ['safe'], customInput: '', cancelled: false })
      ).text(),
    ).frames;
    assert.deepEqual(
      cont.map(seqOf),
      cont.map((_, i) => seqOf(paused) + 1 + i),
    );
    assert.ok(cont.every((f) => runOf(f) === runOf(paused)));
    assert.equal(cont[0]!.event, 'interaction_resolved');
    // Replayed from the card's done: the continue's frames, byte for byte.
    const replay = parseSse(await (await stream('s-cont', paused.id)).text()).frames;
    assert.deepEqual(
      replay.map((f) => f.raw),
      cont.map((f) => f.raw),
    );
  });

  it('a client that leaves mid-text does not stop the run; GET stream with its last id gives the rest, once', async () => {
    const held = gate();
    model.enqueue({ text: 'The quick brown fox jumps over the lazy dog.', chunkSize: 3, pieceDelayMs: 5, hold: held.promise });
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: 's-cut', message: 'go' }),
      signal: controller.signal,
    });
    held.open();
    const seen = parseSse(
      (await readUntil(res, (text) => (text.match(/event: message_delta/g) ?? []).length >= 2, controller)).replace(/[^\n]*$/, ''),
    ).frames.filter((f) => f.data !== undefined);
    const complete = seen.filter((f) => f.raw.endsWith('}'));
    const last = complete.at(-1)!;
    assert.equal(last.event, 'message_delta');
    const rest = parseSse(await (await stream('s-cut', last.id)).text());
    assert.equal(rest.retry, 1000);
    assert.equal(rest.frames.at(-1)!.event, 'done');
    assert.deepEqual(rest.frames.at(-1)!.data, { reason: 'completed' });
    assert.equal(seqOf(rest.frames[0]!), seqOf(last) + 1);
    const text = [...complete, ...rest.frames]
      .filter((f) => f.event === 'message_delta')
      .map((f) => (f.data as { text: string }).text)
      .join('');
    assert.equal(text, 'The quick brown fox jumps over the lazy dog.');
  });

  it('a follower without an id gets the run in flight from its first frame, live, with the same ids and bytes', async () => {
    const held = gate();
    model.enqueue({ text: 'streaming along', chunkSize: 5, hold: held.promise });
    const chatting = post('/api/chat', { sessionId: 's-follow', message: 'go' }).then(async (r) => parseSse(await r.text()).frames);
    await model.waitForRequests(model.requests.length + 1);
    const follower = await stream('s-follow');
    assert.equal(follower.status, 200);
    assert.match(follower.headers.get('content-type') ?? '', /^text\/event-stream/);
    held.open();
    const [chat, followed] = await Promise.all([chatting, follower.text().then((t) => parseSse(t).frames)]);
    assert.deepEqual(
      followed.map((f) => f.raw),
      chat.map((f) => f.raw),
    );
  });

  it("a pick-up without an id while an answered card's run goes on replays the run from its first frame, past its done paused, to its end", async () => {
    const held = gate();
    model.enqueue({ text: 'asking', toolCalls: [askSingle()] }, { text: 'after the answer', hold: held.promise });
    const chat = parseSse(await (await post('/api/chat', { sessionId: 's-past', message: 'go' })).text()).frames;
    const requestId = (chat.find((f) => f.event === 'user_input_required')!.data as { id: string }).id;
    const calls = model.requests.length;
    const continuing = post('/api/chat/continue', {
      sessionId: 's-past',
      requestId,
      selections: ['safe'],
      customInput: '',
      cancelled: false,
    }).then(async (r) => parseSse(await r.text()).frames);
    await model.waitForRequests(calls + 1);
    const picked = await stream('s-past');
    assert.equal(picked.status, 200);
    held.open();
    const [cont, followed] = await Promise.all([continuing, picked.text().then((t) => parseSse(t).frames)]);
    assert.deepEqual(
      followed.map((f) => f.raw),
      [...chat, ...cont].map((f) => f.raw),
    );
    // Once the run is over, its done paused no longer leaves anything open: from the card's done, the rest.
    const fromPause = parseSse(await (await stream('s-past', chat.at(-1)!.id)).text()).frames;
    assert.deepEqual(
      fromPause.map((f) => f.raw),
      cont.map((f) => f.raw),
    );
  });

  it('410 replay_expired for a run the log does not know; 400 for an id not of the form; 403 for a stranger', async () => {
    const gone = await stream('s-410', 'nosuchrun.3');
    assert.equal(gone.status, 410);
    assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'replay_expired');
    const bad = await stream('s-410', 'not an id');
    assert.equal(bad.status, 400);
    const byQuery = await fetch(`${server.url}/api/chat/stream?sessionId=s-410&lastEventId=nosuchrun.1`);
    assert.equal(byQuery.status, 410);
    const stranger = await stream('s-410', undefined, { 'x-user': 'stranger' });
    assert.equal(stranger.status, 403);
    const stop = await post('/api/chat/stop', { sessionId: 's-410' }, { 'x-user': 'stranger' });
    assert.equal(stop.status, 403);
    assert.equal((await post('/api/chat/stop', {})).status, 400);
  });

  it('stop: a run in flight ends with done cancelled at once, in its log; the next message runs right away', async () => {
    const held = gate();
    model.enqueue({ text: 'never finished', hold: held.promise }, { text: 'next one' });
    const calls = model.requests.length;
    const chatting = post('/api/chat', { sessionId: 's-stop', message: 'go' }).then(async (r) => parseSse(await r.text()).frames);
    await model.waitForRequests(calls + 1);
    const stopped = await post('/api/chat/stop', { sessionId: 's-stop' });
    assert.equal(stopped.status, 200);
    assert.deepEqual(await stopped.json(), { stopped: true });
    const frames = await chatting;
    assert.deepEqual(frames.at(-1)!.data, { reason: 'cancelled' });
    held.open();
    const next = parseSse(await (await post('/api/chat', { sessionId: 's-stop', message: 'again' })).text()).frames;
    assert.deepEqual(next.at(-1)!.data, { reason: 'completed' });
    assert.deepEqual(await (await post('/api/chat/stop', { sessionId: 's-stop' })).json(), { stopped: false });
  });

  it('stop on an open card closes it as cancelled: resolved, the cancel ToolResult, done cancelled, no model call', async () => {
    model.enqueue({ toolCalls: [askSingle()] });
    const chat = parseSse(await (await post('/api/chat', { sessionId: 's-stopcard', message: 'go' })).text()).frames;
    const paused = chat.at(-1)!;
    const calls = model.requests.length;
    assert.deepEqual(await (await post('/api/chat/stop', { sessionId: 's-stopcard' })).json(), { stopped: true });
    const pending = (await (await fetch(`${server.url}/api/interactions/pending?sessionId=s-stopcard`)).json()) as { pending: unknown };
    assert.equal(pending.pending, null);
    const logged = parseSse(await (await stream('s-stopcard', paused.id)).text()).frames;
    assert.deepEqual(
      logged.map((f) => f.event),
      ['interaction_resolved', 'tool_result', 'done'],
    );
    assert.equal((logged[0]!.data as { status: string }).status, 'cancelled');
    assert.equal((logged[1]!.data as { content: string }).content, '{"selections":[],"customInput":"","cancelled":true}');
    assert.deepEqual(logged[2]!.data, { reason: 'cancelled' });
    assert.equal(seqOf(logged[0]!), seqOf(paused) + 1);
    assert.equal(model.requests.length, calls);
  });

  it('Idempotency-Key: the same key and body again is answered like the first, also at once; other keys or bodies get 409', async () => {
    model.enqueue({ toolCalls: [askSingle()] }, { text: 'picked' });
    const calls = model.requests.length;
    const chat = parseSse(await (await post('/api/chat', { sessionId: 's-key', message: 'go' })).text()).frames;
    const requestId = (chat.find((f) => f.event === 'user_input_required')!.data as { id: string }).id;
    const body = { sessionId: 's-key', requestId, selections: ['safe'], customInput: '', cancelled: false };
    const key = { 'idempotency-key': 'answer-1' };
    const [a, b] = await Promise.all([post('/api/chat/continue', body, key), post('/api/chat/continue', body, key)]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    const [fa, fb] = [parseSse(await a.text()).frames, parseSse(await b.text()).frames];
    assert.deepEqual(
      fa.map((f) => f.raw),
      fb.map((f) => f.raw),
    );
    assert.deepEqual(fa.at(-1)!.data, { reason: 'completed' });
    const again = await post('/api/chat/continue', body, key);
    assert.equal(again.status, 200);
    assert.deepEqual(
      parseSse(await again.text()).frames.map((f) => f.raw),
      fa.map((f) => f.raw),
    );
    assert.equal((await post('/api/chat/continue', { ...body, selections: ['implement'] }, key)).status, 409);
    assert.equal((await post('/api/chat/continue', body, { 'idempotency-key': 'answer-2' })).status, 409);
    assert.equal((await post('/api/chat/continue', body)).status, 409);
    assert.equal((await post('/api/chat/continue', body, { 'idempotency-key': 'has space' })).status, 400);
    // One model call for the answer, however many times it was sent.
    assert.equal(model.requests.slice(calls).filter((r) => JSON.stringify(r.messages).includes('"role":"tool"')).length, 1);
  });
});

describe('runs outlive the connection (contract §11) on the Responses API', () => {
  it('frames carry ids, a follower gets the run in flight, and stop ends it as cancelled', async () => {
    const model = await startScriptedModel();
    const store = await openStore('memory');
    const kit = createAskUserKit({
      store,
      authorize: () => true,
      logger: memoryAuditLogger(),
      expiryTimers: false,
      runtime: agentRuntime({
        client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }),
        model: 'm',
        api: 'responses',
        onError: () => {},
      }),
    });
    const server = await serveKoaChat(kit);
    try {
      const held = gate();
      model.enqueue({ text: 'a responses reply', chunkSize: 3, hold: held.promise }, { text: 'held forever', hold: new Promise(() => {}) });
      const chatting = server.post('/api/chat', { sessionId: 'r-1', message: 'go' }).then(async (r) => parseSse(await r.text()).frames);
      await model.waitForRequests(1);
      const follower = await fetch(`${server.url}/api/chat/stream?sessionId=r-1`);
      assert.equal(follower.status, 200);
      held.open();
      const [chat, followed] = await Promise.all([chatting, follower.text().then((t) => parseSse(t).frames)]);
      assert.ok(chat.every((f) => ID.test(f.id ?? '')));
      assert.deepEqual(
        followed.map((f) => f.raw),
        chat.map((f) => f.raw),
      );
      const second = server.post('/api/chat', { sessionId: 'r-1', message: 'again' }).then(async (r) => parseSse(await r.text()).frames);
      await model.waitForRequests(2);
      assert.deepEqual(await (await server.post('/api/chat/stop', { sessionId: 'r-1' })).json(), { stopped: true });
      assert.deepEqual((await second).at(-1)!.data, { reason: 'cancelled' });
    } finally {
      await server.close();
      await kit.close();
      await store.close();
      await model.close();
    }
  });
});
