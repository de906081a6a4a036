/**
 * Chat streams that outlive their connection (docs/protocol.md §11), read through the client's calls: the
 * network is a fake `fetch` answering with real Responses over bodies the test feeds and breaks; time is a
 * fake clock whose timers run only when the test moves it. So every wait, backoff and state change is
 * checked by value, never by how fast this machine is.
 */
import { afterEach, describe, it } from './helpers/bdd.js';
import { resumeChat, startChat, stopChat, submitUserInput, ClientError, type ChatEventStream } from '../../widget/client.js';
import type { ChatEvent } from '../../widget/chat-events.js';
import type { StreamOptions } from '../../widget/client-types.js';
import { ChatStreamError } from '../../widget/sse-reader.js';
import { deepEqual, equal, ok, rejects } from './helpers/assert.js';
import { until } from './helpers/expect.js';
import { REQUEST_ID, jsonResponse, userInputRequired } from './helpers/sse-fixtures.js';
import { FakeServer, LiveStream, MemoryStorage, RETRY, FakeClock, idFrame, noContent, type Request } from './helpers/reconnect-fixtures.js';

const SESSION = 'sess-r';
const KEPT = `ask-user-kit:last-event-id:${SESSION}`;
const delta = (text: string) => ({ text });
const done = (reason = 'completed') => ({ reason });

/** One test's world: the server, the clock, the storage, and the options that wire them in. */
function world(extra: StreamOptions = {}) {
  const server = new FakeServer();
  const clock = new FakeClock();
  const storage = new MemoryStorage();
  const options: StreamOptions = { fetch: server.fetch, clock, storage, ...extra };
  return { server, clock, storage, options };
}

/** Reads a stream in the background, recording its events and connection states. */
function reader(events: ChatEventStream) {
  const seen: ChatEvent[] = [];
  const states: string[] = [];
  events.addEventListener('connection', (e) => states.push(e.state));
  const finished = (async () => {
    for await (const event of events) seen.push(event);
  })();
  const texts = () => seen.map((e) => (e.event === 'message_delta' ? e.data.text : e.event));
  return { seen, states, finished, texts };
}

/** `startChat` answered by `first`. */
async function chat(w: ReturnType<typeof world>, first: LiveStream) {
  const pending = startChat({ sessionId: SESSION, message: 'hi' }, w.options);
  (await w.server.request(0)).respond(first.response);
  const result = await pending;
  ok(result.ok, 'startChat answered ok');
  return result;
}

/** Runs the wait timer of the reconnect: the one the reader asked for last. */
async function nextReconnect(w: ReturnType<typeof world>, count: number): Promise<number> {
  await w.clock.scheduledCount(count);
  const delay = w.clock.scheduled[count - 1]!;
  w.clock.advance(delay);
  return delay;
}

describe('a chat stream that reconnects (§11)', () => {
  it('picks up after a cut mid-frame with Last-Event-ID, after the server’s retry, and yields no frame twice', async () => {
    const w = world();
    const first = new LiveStream();
    const { events } = await chat(w, first);
    const r = reader(events);
    // The frame r1.3 is cut in its middle: it was never whole, so it is not yielded.
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('Hel')) + idFrame('r1.2', 'message_delta', delta('lo')));
    first.send('id: r1.3\nevent: message_delta\ndata: {"te').fail();
    await until(() => r.seen.length === 2, 'two frames');
    // The quiet timer (2 s) first, then the wait: the server's retry, 1000 ms.
    equal(await nextReconnect(w, 2), 1000, 'the first wait is the server’s retry');

    const again = await w.server.request(1);
    equal(again.method, 'GET');
    equal(again.url, `/api/chat/stream?sessionId=${SESSION}`);
    equal(again.headers.get('last-event-id'), 'r1.2');
    const second = new LiveStream();
    again.respond(second.response);
    // A server may send a frame the client had; it is skipped by its id.
    second.send(RETRY + idFrame('r1.2', 'message_delta', delta('lo')) + idFrame('r1.3', 'message_delta', delta(' world')));
    second.send(idFrame('r1.4', 'done', done()));
    await r.finished;
    deepEqual(r.texts(), ['Hel', 'lo', ' world', 'done']);
    deepEqual(
      r.seen.map((e) => e.id),
      ['r1.1', 'r1.2', 'r1.3', 'r1.4'],
    );
    deepEqual(r.states, [], 'a cut shorter than 2 s says nothing');
    equal(events.lastEventId, 'r1.4');
    equal(w.server.requests.length, 2, 'no request after done');
  });

  it('reconnects when the body ends without done, and a card is shown once', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    const card = { ...userInputRequired, sessionId: SESSION };
    first.send(RETRY + idFrame('r1.1', 'user_input_required', card)).close();
    await until(() => r.seen.length === 1, 'the card');
    await nextReconnect(w, 2);
    const again = await w.server.request(1);
    equal(again.headers.get('last-event-id'), 'r1.1');
    const second = new LiveStream();
    again.respond(second.response);
    second.send(RETRY + idFrame('r1.1', 'user_input_required', card) + idFrame('r1.2', 'done', done('paused'))).close();
    await r.finished;
    deepEqual(r.texts(), ['user_input_required', 'done']);
  });

  it('treats a body that errors as a cut, like a network drop', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail(new DOMException('connection reset', 'NetworkError'));
    await nextReconnect(w, 2);
    const again = await w.server.request(1);
    const second = new LiveStream();
    again.respond(second.response);
    second.send(RETRY + idFrame('r1.2', 'done', done())).close();
    await r.finished;
    deepEqual(r.texts(), ['a', 'done']);
  });

  it('a stream cut before its first frame asks for the run from its first frame (no Last-Event-ID)', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY).fail();
    await nextReconnect(w, 2);
    const again = await w.server.request(1);
    equal(again.method, 'GET');
    equal(again.headers.get('last-event-id'), null);
    const second = new LiveStream();
    again.respond(second.response);
    second.send(RETRY + idFrame('r1.1', 'message_delta', delta('a')) + idFrame('r1.2', 'done', done())).close();
    await r.finished;
    deepEqual(r.texts(), ['a', 'done']);
  });

  it('takes the frames of the next run, whose seqs start again', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.5', 'message_delta', delta('a'))).fail();
    await nextReconnect(w, 2);
    const second = new LiveStream();
    (await w.server.request(1)).respond(second.response);
    second.send(
      RETRY + idFrame('r1.6', 'done', done('paused')) + idFrame('r2.1', 'message_delta', delta('b')) + idFrame('r2.2', 'done', done()),
    );
    second.close();
    await r.finished;
    deepEqual(r.texts(), ['a', 'done', 'b', 'done'], 'a picked-up stream reads on past a paused done until the body ends');
  });

  it('ends when the server has nothing in flight (204), and says connected again', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await nextReconnect(w, 2);
    (await w.server.request(1)).fail();
    // Cut off for 2 s: reconnecting.
    await w.clock.scheduledCount(3);
    w.clock.advance(1000);
    deepEqual(r.states, ['reconnecting']);
    await nextReconnect(w, 3);
    (await w.server.request(2)).respond(noContent());
    await r.finished;
    deepEqual(r.texts(), ['a']);
    deepEqual(r.states, ['reconnecting', 'connected']);
    deepEqual(w.clock.pending, [], 'no timer left behind');
  });

  it('410 replay_expired: the state is gone, the iteration ends and the kept id is dropped', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await until(() => w.storage.items.get(KEPT) === 'r1.1', 'the kept id');
    await nextReconnect(w, 2);
    (await w.server.request(1)).respond(jsonResponse({ error: { code: 'replay_expired', message: 'gone' } }, 410));
    await r.finished;
    deepEqual(r.states, ['gone']);
    equal(w.storage.items.has(KEPT), false);
    equal(w.server.requests.length, 2);
  });

  it('says reconnecting after 2 s cut off, and connected when frames flow again', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await nextReconnect(w, 2);
    // The reconnect hangs: no answer yet, and 2 s pass.
    await w.server.request(1);
    w.clock.advance(1000);
    deepEqual(r.states, ['reconnecting']);
    const second = new LiveStream();
    w.server.requests[1]!.respond(second.response);
    second.send(idFrame('r1.2', 'message_delta', delta('b')));
    await until(() => r.seen.length === 2, 'the next frame');
    deepEqual(r.states, ['reconnecting', 'connected']);
    second.send(idFrame('r1.3', 'done', done())).close();
    await r.finished;
  });

  it('backs off with jitter, doubling from the server’s retry up to 30 s, never under the retry', async () => {
    for (const random of [0, 0.999]) {
      const stop = new AbortController();
      const w = world({ signal: stop.signal });
      w.clock.randoms = Array(12).fill(random);
      const first = new LiveStream();
      const r = reader((await chat(w, first)).events);
      first.send('retry: 1500\n\n' + idFrame('r1.1', 'message_delta', delta('a'))).fail();
      const waits: number[] = [];
      for (let n = 0; n < 8; n++) {
        waits.push(await nextReconnect(w, 2 + n));
        (await w.server.request(1 + n)).fail();
      }
      waits.forEach((wait, n) => {
        const step = Math.min(30_000, 1500 * 2 ** n);
        ok(wait >= Math.max(1500, step / 2) && wait <= step, `wait #${n} = ${wait} within [${Math.max(1500, step / 2)}, ${step}]`);
      });
      equal(waits[0], 1500, 'the first wait is the retry itself');
      ok(
        waits.slice(5).every((wait) => wait <= 30_000 && wait >= 15_000),
        `capped at 30 s: ${waits.join(', ')}`,
      );
      stop.abort();
      await r.finished;
    }
  });

  it('is gone after replayWindowMs of failed attempts', async () => {
    const w = world({ replayWindowMs: 10_000 });
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    // Each reconnect fails; the timers run one wait after the other until the window is over.
    for (let n = 0; !r.states.includes('gone'); n++) {
      await w.clock.scheduledCount(2 + n);
      w.clock.advance(w.clock.scheduled[1 + n]!);
      (await w.server.request(1 + n)).fail();
      await until(() => w.clock.scheduled.length >= 3 + n || r.states.includes('gone'), 'the next wait, or gone');
    }
    await r.finished;
    deepEqual(r.states, ['reconnecting', 'gone']);
    ok(w.clock.now() >= 10_000, `gone only once the window is over (at ${w.clock.now()} ms)`);
    ok(w.clock.now() < 10_000 + 30_000, `and not much later (at ${w.clock.now()} ms)`);
  });

  it('retries a 503, a 429 and a 200 that is no event stream, and gives up with ChatStreamError http_status on a 403', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await nextReconnect(w, 2);
    (await w.server.request(1)).respond(jsonResponse({ error: { code: 'store_unavailable', message: 'later' } }, 503));
    await nextReconnect(w, 3);
    (await w.server.request(2)).respond(new Response('slow down', { status: 429 }));
    await nextReconnect(w, 4);
    // A captive portal answers the network's first requests with a page of its own.
    (await w.server.request(3)).respond(new Response('<html>log in</html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    await nextReconnect(w, 5);
    (await w.server.request(4)).respond(jsonResponse({ error: { code: 'forbidden', message: 'no' } }, 403));
    const error = await rejects(() => r.finished);
    ok(error instanceof ChatStreamError && error.code === 'http_status' && error.status === 403, `got ${String(error)}`);
  });

  it('reconnects at once when the page comes online, without waiting out the backoff', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await w.clock.scheduledCount(2);
    window.dispatchEvent(new Event('online'));
    const again = await w.server.request(1);
    equal(w.clock.now(), 0, 'no time passed');
    equal(again.headers.get('last-event-id'), 'r1.1');
    const second = new LiveStream();
    again.respond(second.response);
    second.send(RETRY + idFrame('r1.2', 'done', done())).close();
    await r.finished;
    deepEqual(r.texts(), ['a', 'done']);
  });

  it('reconnects at once when the page becomes visible, not when it is hidden', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await w.clock.scheduledCount(2);
    const visibility = (state: DocumentVisibilityState) => {
      Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    };
    try {
      visibility('hidden');
      await new Promise((resolve) => setTimeout(resolve, 50));
      equal(w.server.requests.length, 1, 'hidden: still waiting');
      visibility('visible');
      const again = await w.server.request(1);
      equal(w.clock.now(), 0, 'no time passed');
      const second = new LiveStream();
      again.respond(second.response);
      second.send(RETRY + idFrame('r1.2', 'done', done())).close();
      await r.finished;
    } finally {
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });

  it('stops waiting, and leaves no timer, when the host’s signal aborts', async () => {
    const controller = new AbortController();
    const w = world({ signal: controller.signal });
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    await w.clock.scheduledCount(2);
    controller.abort();
    await r.finished;
    deepEqual(r.texts(), ['a']);
    deepEqual(w.clock.pending, []);
    equal(w.server.requests.length, 1, 'no reconnect');
  });

  it('a consumer that breaks out ends it all: body cancelled, no timer, no reconnect', async () => {
    const w = world();
    const first = new LiveStream();
    const { events } = await chat(w, first);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a')));
    for await (const event of events) {
      equal(event.id, 'r1.1');
      break;
    }
    await first.cancelled;
    deepEqual(w.clock.pending, []);
  });

  it('reconnect: false reads one response, as before: a cut throws stream_failed', async () => {
    const w = world({ reconnect: false });
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send(RETRY + idFrame('r1.1', 'message_delta', delta('a'))).fail();
    const error = await rejects(() => r.finished);
    ok(error instanceof ChatStreamError && error.code === 'stream_failed', `got ${String(error)}`);
    equal(w.server.requests.length, 1);
  });

  it('a stream without ids (a 1.1 server) is not picked up once it yielded: it would repeat itself', async () => {
    const w = world();
    const first = new LiveStream();
    const r = reader((await chat(w, first)).events);
    first.send('event: message_delta\ndata: {"text":"a"}\n\n').fail();
    const error = await rejects(() => r.finished);
    ok(error instanceof ChatStreamError && error.code === 'stream_failed', `got ${String(error)}`);
    equal(w.server.requests.length, 1);
    deepEqual(r.texts(), ['a']);
  });
});

describe('the kept id and resumeChat (§11)', () => {
  afterEach(() => sessionStorage.removeItem(KEPT));

  it('keeps the id of each frame as it is handed over, per session, in sessionStorage by default', async () => {
    const server = new FakeServer();
    const first = new LiveStream();
    const pending = startChat({ sessionId: SESSION, message: 'hi' }, { fetch: server.fetch });
    (await server.request(0)).respond(first.response);
    const result = await pending;
    ok(result.ok);
    const iterator = result.events[Symbol.asyncIterator]();
    first.send(RETRY + idFrame('r7.1', 'message_delta', delta('a')) + idFrame('r7.2', 'message_delta', delta('b')));
    await iterator.next();
    equal(sessionStorage.getItem(KEPT), 'r7.1');
    await iterator.next();
    equal(sessionStorage.getItem(KEPT), 'r7.2');
    await iterator.return?.();
  });

  it('resumeChat sends the kept id as Last-Event-ID and skips nothing new', async () => {
    sessionStorage.setItem(KEPT, 'r7.2');
    const server = new FakeServer();
    const pending = resumeChat(SESSION, { fetch: server.fetch, endpoint: '/agent/' });
    const request = await server.request(0);
    equal(request.method, 'GET');
    equal(request.url, `/agent/chat/stream?sessionId=${SESSION}`);
    equal(request.headers.get('last-event-id'), 'r7.2');
    equal(request.headers.get('accept'), 'text/event-stream');
    const stream = new LiveStream();
    request.respond(stream.response);
    const result = await pending;
    ok(result.ok);
    const r = reader(result.events);
    // The kept frame itself, should the server send it, is not handed over again.
    stream.send(
      RETRY + idFrame('r7.2', 'message_delta', delta('b')) + idFrame('r7.3', 'message_delta', delta('c')) + idFrame('r7.4', 'done', done()),
    );
    stream.close();
    await r.finished;
    deepEqual(r.texts(), ['c', 'done']);
    equal(sessionStorage.getItem(KEPT), 'r7.4');
  });

  it('resumeChat without a kept id, or with lastEventId: null, asks for the run from its first frame', async () => {
    const w = world();
    w.storage.setItem(KEPT, 'r7.9');
    for (const options of [{ storage: new MemoryStorage() }, { lastEventId: null }]) {
      const server = new FakeServer();
      const pending = resumeChat(SESSION, { ...w.options, fetch: server.fetch, ...options });
      const request = await server.request(0);
      equal(request.headers.get('last-event-id'), null);
      request.respond(noContent());
      await pending;
    }
  });

  it('resumeChat with nothing in flight: 204, ok with the response and no events', async () => {
    const w = world();
    const pending = resumeChat(SESSION, w.options);
    (await w.server.request(0)).respond(noContent());
    const result = await pending;
    ok(result.ok);
    equal(result.response.status, 204);
    const r = reader(result.events);
    await r.finished;
    deepEqual(r.seen, []);
  });

  it('resumeChat answered 410: a refusal with replay_expired, and the kept id is dropped', async () => {
    const w = world();
    w.storage.setItem(KEPT, 'r7.1');
    const pending = resumeChat(SESSION, w.options);
    (await w.server.request(0)).respond(jsonResponse({ error: { code: 'replay_expired', message: 'too old' } }, 410));
    const result = await pending;
    ok(!result.ok);
    deepEqual([result.status, result.error.code], [410, 'replay_expired']);
    equal(w.storage.items.has(KEPT), false);
  });

  it('resumeChat reconnects too: its stream cut picks up after the last frame', async () => {
    const w = world();
    const pending = resumeChat(SESSION, { ...w.options, lastEventId: 'r3.4' });
    const first = new LiveStream();
    (await w.server.request(0)).respond(first.response);
    const result = await pending;
    ok(result.ok);
    const r = reader(result.events);
    first.send(RETRY).fail();
    await nextReconnect(w, 2);
    const again = await w.server.request(1);
    equal(again.headers.get('last-event-id'), 'r3.4', 'still after the id it started from');
    const second = new LiveStream();
    again.respond(second.response);
    second.send(RETRY + idFrame('r3.5', 'done', done())).close();
    await r.finished;
    deepEqual(r.texts(), ['done']);
  });
});

describe('submitUserInput and the Idempotency-Key (§11)', () => {
  const answer = { sessionId: SESSION, requestId: REQUEST_ID, selections: ['safe'], customInput: '', cancelled: false };

  it('sends a random key per answer, the same key when the same answer is sent again after a network failure', async () => {
    const w = world();
    const attempt = async (body: typeof answer) => {
      const pending = submitUserInput(body, w.options);
      const request = await w.server.request(w.server.requests.length);
      request.fail();
      const result = await pending;
      equal(result.ok, false);
      return request.headers.get('idempotency-key');
    };
    const key = await attempt(answer);
    ok(key && /^[0-9a-f]{32}$/.test(key), `a 128-bit key, got ${key}`);
    equal(await attempt({ ...answer }), key, 'the same answer again: the same key');
    const other = await attempt({ ...answer, selections: ['fast'] });
    ok(other && other !== key, 'another answer: another key');
  });

  it('takes the key a host gives', async () => {
    const w = world();
    const pending = submitUserInput(answer, { ...w.options, idempotencyKey: 'host-key-1' });
    const request = await w.server.request(0);
    equal(request.headers.get('idempotency-key'), 'host-key-1');
    request.respond(jsonResponse({ error: { code: 'expired', message: 'late' } }, 410));
    await pending;
  });

  it('a continue stream cut before its first frame sends the same answer again with the same key, then picks up by id', async () => {
    const w = world();
    const body = { ...answer, selections: ['again'] };
    const pending = submitUserInput(body, w.options);
    const post = await w.server.request(0);
    const first = new LiveStream();
    post.respond(first.response);
    const result = await pending;
    ok(result.ok);
    const r = reader(result.events);
    first.send(RETRY).fail();
    await nextReconnect(w, 2);
    const repost = await w.server.request(1);
    deepEqual(
      [repost.method, repost.url, repost.body, repost.headers.get('idempotency-key')],
      ['POST', '/api/chat/continue', post.body, post.headers.get('idempotency-key')],
    );
    const replayed = new LiveStream();
    repost.respond(replayed.response);
    replayed
      .send(RETRY + idFrame('r1.7', 'interaction_resolved', { requestId: REQUEST_ID, toolCallId: 'call_1', status: 'answered' }))
      .fail();
    await nextReconnect(w, 3);
    const get = await w.server.request(2);
    deepEqual([get.method, get.headers.get('last-event-id')], ['GET', 'r1.7']);
    const rest = new LiveStream();
    get.respond(rest.response);
    rest.send(RETRY + idFrame('r1.8', 'done', done())).close();
    await r.finished;
    deepEqual(r.texts(), ['interaction_resolved', 'done']);
  });
});

describe('stopChat (§11)', () => {
  it('POSTs { sessionId } to {endpoint}/chat/stop and returns { stopped }', async () => {
    for (const stopped of [true, false]) {
      const server = new FakeServer();
      const pending = stopChat(SESSION, { fetch: server.fetch, endpoint: '/agent' });
      const request = await server.request(0);
      deepEqual([request.method, request.url, request.body], ['POST', '/agent/chat/stop', `{"sessionId":"${SESSION}"}`]);
      equal(request.headers.get('content-type'), 'application/json');
      request.respond(jsonResponse({ stopped }));
      deepEqual(await pending, { stopped });
    }
  });

  it('throws ClientError for a refusal, a network failure and an answer without stopped', async () => {
    const cases: Array<[(r: Request) => void, number, string]> = [
      [(r) => r.respond(jsonResponse({ error: { code: 'forbidden', message: 'not yours' } }, 403)), 403, 'forbidden'],
      [(r) => r.fail(), 0, 'network_error'],
      [(r) => r.respond(jsonResponse({ ok: true })), 200, 'unexpected_response'],
    ];
    for (const [answer, status, code] of cases) {
      const server = new FakeServer();
      const pending = stopChat(SESSION, { fetch: server.fetch });
      answer(await server.request(0));
      const error = await rejects(() => pending);
      ok(error instanceof ClientError && error.status === status && error.code === code, `got ${String(error)}`);
    }
  });
});
