/**
 * `<ask-user-provider>` gives cards an endpoint, session, fetch and locale; a card under it submits by
 * itself through the client and hands the continuation stream over in `ask-user-continued`. The network is
 * a fake `fetch` answering with real `Response`s (SSE bodies for 200, contract error bodies otherwise);
 * the elements, the client and the SSE reader are the real ones.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import type { AskUserProvider } from '../../widget/ask-user-provider.js';
import { AskUserContinuedEvent, type AskUserConnectionEvent, type AskUserErrorEvent } from '../../widget/events.js';
import type { ChatEventStream } from '../../widget/client-types.js';
import type { AskUserRequest } from '../../widget/read-answer.js';
import { assert, deepEqual, equal, includes, until } from './helpers/expect.js';
import { $, cancel, cleanup, has, mount, pick, settle, single, submit, textOf } from './helpers/card-fixtures.js';
import { frame, jsonResponse, streamResponse } from './helpers/sse-fixtures.js';

afterEach(cleanup);

interface Sent {
  url: string;
  method: string;
  body: unknown;
}

/** A fetch that records each call and answers with the next of `responses` (the last one repeats). */
function fakeFetch(...responses: Array<() => Response | Promise<Response>>) {
  const sent: Sent[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ url: String(input), method: init?.method ?? 'GET', body: JSON.parse(String(init?.body ?? 'null')) });
    const next = responses[Math.min(sent.length - 1, responses.length - 1)]!;
    return next();
  }) as typeof fetch;
  return { fn, sent };
}

function acceptedStream(req: AskUserRequest, selections: string[]) {
  const content = JSON.stringify({ selections, customInput: '', cancelled: false });
  return streamResponse([
    frame('interaction_resolved', {
      requestId: req.id,
      toolCallId: req.toolCallId,
      status: 'answered',
      at: '2030-01-01T00:00:00.000Z',
      selections,
      customInputLength: 0,
    }),
    ': ping\n\n',
    frame('tool_result', { toolCallId: req.toolCallId, name: 'ask_user', content, isError: false }),
    frame('message_delta', { text: '好的，先分析。' }),
    frame('done', { reason: 'completed' }),
  ]).response;
}

async function provider(props: Partial<Pick<AskUserProvider, 'endpoint' | 'sessionId' | 'fetch' | 'locale'>>): Promise<AskUserProvider> {
  const el = document.createElement('ask-user-provider');
  Object.assign(el, props);
  document.body.append(el);
  await el.updateComplete;
  return el;
}

/** A card with no onSubmit of its own, so the provider path is taken. */
const mountBare = (req: unknown, parent?: HTMLElement, props: Parameters<typeof mount>[1] = {}) =>
  mount(req, { onSubmit: undefined, ...props }, parent);

describe('<ask-user-provider>', () => {
  it('a card under it posts the answer to {endpoint}/chat/continue and hands over the continuation stream', async () => {
    const req = single();
    const net = fakeFetch(() => acceptedStream(req, ['safe']));
    const p = await provider({ endpoint: '/base/api/', sessionId: 'ignored-when-request-has-one', fetch: net.fn });
    const continued: AskUserContinuedEvent[] = [];
    p.addEventListener('ask-user-continued', (e) => continued.push(e));
    const { card } = await mountBare(req, p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => continued.length === 1, 'ask-user-continued');

    deepEqual(net.sent, [
      {
        url: '/base/api/chat/continue',
        method: 'POST',
        body: { sessionId: 'sess-1', requestId: req.id, selections: ['safe'], customInput: '', cancelled: false },
      },
    ]);
    const detail = continued[0]!.detail;
    equal(detail.requestId, req.id, 'requestId');
    equal(detail.toolCallId, req.toolCallId, 'toolCallId');
    equal(detail.response.status, 200, 'the raw response');
    const names: string[] = [];
    for await (const ev of detail.events) names.push(ev.event);
    deepEqual(names, ['interaction_resolved', 'tool_result', 'message_delta', 'done'], 'the stream, in order');
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'receipt');
    equal(textOf(card, '[part~="receipt-note"]'), '继续执行中…', 'continuing');
  });

  it('cancel posts cancelled: true with empty selections and text', async () => {
    const req = single();
    const net = fakeFetch(() => acceptedStream(req, []));
    const p = await provider({ fetch: net.fn });
    const { card } = await mountBare(req, p);
    await cancel(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(net.sent[0]!.url, '/api/chat/continue', 'default endpoint');
    deepEqual(net.sent[0]!.body, { sessionId: 'sess-1', requestId: req.id, selections: [], customInput: '', cancelled: true });
    equal(textOf(card, '[part~="receipt-status"]'), '已取消', 'status');
  });

  it('409 already_answered from the server shows its receipt and fires ask-user-error', async () => {
    const req = single();
    const at = '2030-01-01T00:02:00.000Z';
    const net = fakeFetch(() =>
      jsonResponse(
        {
          error: {
            code: 'already_answered',
            message: 'answered before',
            receipt: { requestId: req.id, toolCallId: req.toolCallId, status: 'answered', at },
          },
        },
        409,
      ),
    );
    const p = await provider({ fetch: net.fn });
    const errors: AskUserErrorEvent[] = [];
    p.addEventListener('ask-user-error', (e) => errors.push(e));
    const { card } = await mountBare(req, p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(textOf(card, '[part~="receipt-status"]'), '此问题已经回答过（可能在其他窗口）', 'status');
    equal($(card, 'time').getAttribute('datetime'), at, 'first answer time');
    equal(errors.length, 1, 'error event');
    equal(errors[0]!.detail.failure.status, 409, 'failure status');
  });

  it('503 offers a retry that posts the same body again', async () => {
    const req = single();
    const net = fakeFetch(
      () => jsonResponse({ error: { code: 'store_unavailable', message: 'store down' } }, 503),
      () => acceptedStream(req, ['implement']),
    );
    const p = await provider({ fetch: net.fn });
    const { card } = await mountBare(req, p);
    await pick(card, '直接实现');
    await submit(card);
    await until(() => has(card, '[part~="retry-button"]'), 'retry button');
    includes(textOf(card, '[part~="server-error"]'), '可以稍后重试', 'what to do');
    $<HTMLButtonElement>(card, '[part~="retry-button"]').click();
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(net.sent.length, 2, 'two posts');
    deepEqual(net.sent[1]!.body, net.sent[0]!.body, 'same body');
  });

  it('410 from the server shows the timeout receipt', async () => {
    const net = fakeFetch(() => jsonResponse({ error: { code: 'expired', message: 'past expiresAt' } }, 410));
    const p = await provider({ fetch: net.fn });
    const { card } = await mountBare(single(), p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
  });

  it('a fetch that rejects reads as a network failure with a retry', async () => {
    const net = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const p = await provider({ fetch: net.fn });
    const { card } = await mountBare(single(), p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="server-error"]'), 'error');
    includes(textOf(card, '[part~="server-error"]'), '网络连接失败', 'message');
    assert(has(card, '[part~="retry-button"]'), 'retry');
  });

  it("the provider's session-id is used for a request without one; with none anywhere nothing is sent", async () => {
    const req = { ...single(), sessionId: undefined };
    const net = fakeFetch(() => acceptedStream(req, ['safe']));
    const p = await provider({ fetch: net.fn, sessionId: 'from-provider' });
    const { card } = await mountBare(req, p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => net.sent.length === 1, 'post');
    equal((net.sent[0]!.body as { sessionId: string }).sessionId, 'from-provider', 'session');

    const net2 = fakeFetch(() => acceptedStream(req, ['safe']));
    const p2 = await provider({ fetch: net2.fn });
    const { card: card2 } = await mountBare({ ...single(), sessionId: undefined }, p2);
    await pick(card2, '先分析');
    await submit(card2);
    await settle(card2);
    equal(net2.sent.length, 0, 'nothing sent without a session');
    includes(textOf(card2, '[part~="server-error"]'), 'No sessionId', 'says what is missing');
  });

  it('resumable: false under a provider never calls fetch', async () => {
    const net = fakeFetch(() => jsonResponse({}, 500));
    const p = await provider({ fetch: net.fn });
    const { card } = await mountBare(single({ resumable: false }), p);
    equal(card.shadowRoot!.querySelectorAll('button').length, 0, 'no button to press');
    await settle(card);
    equal(net.sent.length, 0, 'no request');
  });

  it("a card's own endpoint and fetch win over the provider's", async () => {
    const req = single();
    const providerNet = fakeFetch(() => acceptedStream(req, ['safe']));
    const cardNet = fakeFetch(() => acceptedStream(req, ['safe']));
    const p = await provider({ fetch: providerNet.fn, endpoint: '/provider' });
    const { card } = await mountBare(req, p, { endpoint: '/own', fetch: cardNet.fn });
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(providerNet.sent.length, 0, 'provider fetch unused');
    equal(cardNet.sent[0]!.url, '/own/chat/continue', 'own endpoint');
  });

  it('onSubmit on the card takes precedence over the provider', async () => {
    const net = fakeFetch(() => jsonResponse({}, 500));
    const p = await provider({ fetch: net.fn });
    const { card, calls } = await mount(single(), {}, p);
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(calls.length, 1, 'onSubmit called');
    equal(net.sent.length, 0, 'no provider request');
  });
});

describe('<ask-user-provider> and the connection of its cards’ streams (§11)', () => {
  /** A stand-in for a card's continuation stream: an event target the test fires `connection` on. */
  const fakeStream = () => {
    const target = new EventTarget();
    const say = (state: string) => target.dispatchEvent(Object.assign(new Event('connection'), { state }));
    return { events: target as unknown as ChatEventStream, say };
  };
  const continued = (events: ChatEventStream, requestId = 'ask_1') =>
    new AskUserContinuedEvent({
      requestId,
      toolCallId: 'call_1',
      sessionId: 'sess-9',
      answer: { selections: [], customInput: '', cancelled: false },
      response: new Response(''),
      events,
    });

  it('passes each connection state of a stream a card started on as ask-user-connection, bubbling and composed', async () => {
    const p = await provider({});
    const child = document.createElement('div');
    p.append(child);
    const heard: AskUserConnectionEvent[] = [];
    const onDocument = (e: AskUserConnectionEvent) => heard.push(e);
    document.addEventListener('ask-user-connection', onDocument);
    try {
      const stream = fakeStream();
      child.dispatchEvent(continued(stream.events));
      stream.say('reconnecting');
      stream.say('connected');
      deepEqual(
        heard.map((e) => e.detail),
        [
          { state: 'reconnecting', sessionId: 'sess-9', requestId: 'ask_1' },
          { state: 'connected', sessionId: 'sess-9', requestId: 'ask_1' },
        ],
        'the states, with session and card',
      );
      assert(
        heard.every((e) => e.bubbles && e.composed && e.target === p),
        'fired by the provider, bubbling and composed',
      );
    } finally {
      document.removeEventListener('ask-user-connection', onDocument);
    }
  });

  it('the nearest provider passes it on, once; a stream without events of its own is left alone', async () => {
    const outer = await provider({});
    const inner = document.createElement('ask-user-provider');
    outer.append(inner);
    await inner.updateComplete;
    const child = document.createElement('div');
    inner.append(child);
    const heard: AskUserConnectionEvent[] = [];
    outer.addEventListener('ask-user-connection', (e) => heard.push(e));
    const stream = fakeStream();
    child.dispatchEvent(continued(stream.events));
    stream.say('gone');
    equal(heard.length, 1, 'said once');
    equal(heard[0]!.target, inner, 'by the nearest provider');
    const plain = (async function* () {})() as unknown as ChatEventStream;
    child.dispatchEvent(continued(plain));
  });

  it('a card’s real continuation stream, cut and then expired on the server, ends as gone', async () => {
    const req = single();
    const sent: Array<{ method: string; lastEventId: string | null }> = [];
    const fn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? 'GET', lastEventId: headers.get('last-event-id') });
      if (sent.length > 1) return jsonResponse({ error: { code: 'replay_expired', message: 'too old' } }, 410);
      // retry: 0 asks for the reconnect at once, so no timer has to run out.
      return streamResponse(
        [
          'retry: 0\n\n',
          `id: run_a.1\n${frame('interaction_resolved', { requestId: req.id, toolCallId: req.toolCallId, status: 'answered', at: '2030-01-01T00:00:00.000Z', selections: ['safe'], customInputLength: 0 })}`,
        ],
        {
          failWith: new TypeError('network changed'),
        },
      ).response;
    }) as typeof fetch;
    const p = await provider({ fetch: fn });
    const states: AskUserConnectionEvent['detail'][] = [];
    p.addEventListener('ask-user-connection', (e) => states.push(e.detail));
    let events: ChatEventStream | undefined;
    p.addEventListener('ask-user-continued', (e) => (events = e.detail.events));
    const { card } = await mountBare(req, p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => events, 'ask-user-continued');
    const names: string[] = [];
    for await (const e of events!) names.push(e.event);
    deepEqual(names, ['interaction_resolved'], 'the frame before the cut, once');
    deepEqual(sent, [
      { method: 'POST', lastEventId: null },
      { method: 'GET', lastEventId: 'run_a.1' },
    ]);
    deepEqual(states, [{ state: 'gone', sessionId: 'sess-1', requestId: req.id }]);
    sessionStorage.removeItem('ask-user-kit:last-event-id:sess-1');
  });

  it('the retry button sends the same answer with the same Idempotency-Key after a network failure', async () => {
    const req = single();
    const keys: Array<string | null> = [];
    const fn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      if (keys.length === 1) throw new TypeError('Failed to fetch');
      return acceptedStream(req, ['safe']);
    }) as typeof fetch;
    const p = await provider({ fetch: fn });
    const { card } = await mountBare(req, p);
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="retry-button"]'), 'retry button');
    $<HTMLButtonElement>(card, '[part~="retry-button"]').click();
    await until(() => has(card, '[part~="receipt"]'), 'receipt');
    equal(keys.length, 2, 'two posts');
    assert(keys[0] && keys[0] === keys[1], `one key for both: ${JSON.stringify(keys)}`);
  });
});

describe('without a provider', () => {
  it('with its own endpoint the card submits by itself', async () => {
    const req = single();
    const net = fakeFetch(() => acceptedStream(req, ['safe']));
    let continued = 0;
    document.addEventListener('ask-user-continued', () => continued++, { once: true });
    const { card } = await mountBare(req, undefined, { endpoint: '/x', fetch: net.fn });
    await pick(card, '先分析');
    await submit(card);
    await until(() => continued === 1, 'ask-user-continued');
    equal(net.sent[0]!.url, '/x/chat/continue', 'url');
  });

  it('with neither endpoint nor onSubmit, and no host taking ask-user-submit, the card fires it and then says it cannot send', async () => {
    const original = window.fetch;
    let fetched = 0;
    window.fetch = (() => {
      fetched++;
      return Promise.reject(new Error('must not be called'));
    }) as typeof fetch;
    try {
      let submitted = 0;
      document.addEventListener('ask-user-submit', () => submitted++, { once: true });
      const { card } = await mountBare(single());
      await pick(card, '先分析');
      await submit(card);
      await settle(card);
      equal(submitted, 1, 'event');
      equal(fetched, 0, 'no fetch');
      // Listening without preventDefault() is not taking the submission: no one would end "submitting".
      equal(
        textOf(card, '[part~="server-error"] p'),
        '无法发送回答：此页面没有为卡片设置提交方式。你的回答尚未提交。',
        'says it cannot send',
      );
      equal(textOf(card, '[part~="submit-button"]'), '继续', 'the form is open again');
      card.markSubmitted();
      await card.updateComplete;
      equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'host confirmed');
    } finally {
      window.fetch = original;
    }
  });
});
