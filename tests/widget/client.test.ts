import { describe, it } from './helpers/bdd.js';
import { ClientError, fetchPending, startChat, submitUserInput, type ContinueResult } from '../../widget/client.js';
import { deepEqual, equal, ok, rejects } from './helpers/assert.js';
import {
  ACCEPTED_EVENTS,
  REQUEST_ID,
  acceptedStream,
  collect,
  jsonResponse,
  streamResponse,
  userInputRequired,
} from './helpers/sse-fixtures.js';

interface Call {
  url: string;
  init: RequestInit;
}

/** A fetch that records its calls and answers each with what `respond` returns (or throws). */
function fakeFetch(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const call = { url: String(input), init };
    calls.push(call);
    return respond(call);
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const answer = { sessionId: 'sess-1', requestId: REQUEST_ID, selections: ['safe'], customInput: '', cancelled: false };

function failure(result: ContinueResult) {
  if (result.ok) throw new Error('expected a refused call, got ok: true');
  return result;
}

describe('submitUserInput', () => {
  it('POSTs the answer as JSON to {endpoint}/chat/continue and streams back typed events', async () => {
    const { fetch, calls } = fakeFetch(() => streamResponse([acceptedStream()]).response);
    const result = await submitUserInput(answer, { fetch });
    ok(result.ok, 'expected ok: true');
    deepEqual(await collect(result.events), ACCEPTED_EVENTS);
    equal(calls.length, 1);
    equal(calls[0]!.url, '/api/chat/continue');
    equal(calls[0]!.init.method, 'POST');
    const headers = new Headers(calls[0]!.init.headers);
    equal(headers.get('content-type'), 'application/json');
    equal(headers.get('accept'), 'text/event-stream');
    equal(
      calls[0]!.init.body,
      '{"sessionId":"sess-1","requestId":"ask_AAAAAAAAAAAAAAAAAAAAAA","selections":["safe"],"customInput":"","cancelled":false}',
    );
  });

  it('uses a custom endpoint, trailing slashes trimmed, and hands the signal to fetch', async () => {
    const { fetch, calls } = fakeFetch(() => streamResponse([acceptedStream()]).response);
    const controller = new AbortController();
    await submitUserInput(answer, { fetch, endpoint: 'https://agent.example/v1/', signal: controller.signal });
    equal(calls[0]!.url, 'https://agent.example/v1/chat/continue');
    equal(calls[0]!.init.signal, controller.signal);
  });

  const refusals: Array<[number, Record<string, unknown>]> = [
    [400, { code: 'invalid_request', message: 'selections must be an array' }],
    [403, { code: 'forbidden', message: 'not allowed' }],
    [403, { code: 'session_mismatch', message: 'request belongs to another session' }],
    [404, { code: 'not_found', message: 'unknown requestId' }],
    [
      409,
      {
        code: 'already_answered',
        message: 'answered before',
        receipt: { requestId: REQUEST_ID, toolCallId: 'call_1', status: 'answered', at: '2030-01-01T00:01:00.000Z' },
      },
    ],
    [409, { code: 'not_resumable', message: 'run state is gone' }],
    [410, { code: 'expired', message: 'expired at 00:30' }],
    [422, { code: 'invalid_answer', message: 'pick one option', field: 'selections' }],
    [503, { code: 'store_unavailable', message: 'store unreachable; retry' }],
  ];
  for (const [status, error] of refusals) {
    it(`maps HTTP ${status} ${String(error.code)} to { ok: false } with the contract's error`, async () => {
      const { fetch } = fakeFetch(() => jsonResponse({ error }, status));
      const result = failure(await submitUserInput(answer, { fetch }));
      equal(result.status, status);
      deepEqual(result.error, error);
    });
  }

  it('drops a receipt that lacks its fields instead of passing half of it on', async () => {
    const { fetch } = fakeFetch(() =>
      jsonResponse({ error: { code: 'already_answered', message: 'm', receipt: { requestId: 'r' } } }, 409),
    );
    const result = failure(await submitUserInput(answer, { fetch }));
    deepEqual(result.error, { code: 'already_answered', message: 'm' });
  });

  it('maps an error status with a non-JSON body to http_error', async () => {
    const { fetch } = fakeFetch(
      () => new Response('<html>502 Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    const result = failure(await submitUserInput(answer, { fetch }));
    equal(result.status, 502);
    equal(result.error.code, 'http_error');
    ok(result.error.message.includes('502'), result.error.message);
  });

  it('maps JSON that is not the contract error body to http_error', async () => {
    const { fetch } = fakeFetch(() => jsonResponse({ message: 'nope' }, 500));
    equal(failure(await submitUserInput(answer, { fetch })).error.code, 'http_error');
  });

  it('maps a 2xx that is not an event stream to unexpected_response', async () => {
    const { fetch } = fakeFetch(() => jsonResponse({ ok: true }));
    const result = failure(await submitUserInput(answer, { fetch }));
    equal(result.status, 200);
    equal(result.error.code, 'unexpected_response');
  });

  it('maps a fetch that rejects to status 0 network_error', async () => {
    const { fetch } = fakeFetch(() => {
      throw new TypeError('Failed to fetch');
    });
    const result = failure(await submitUserInput(answer, { fetch }));
    equal(result.status, 0);
    equal(result.error.code, 'network_error');
    ok(result.error.message.includes('Failed to fetch'), result.error.message);
  });

  it('maps a fetch aborted by the signal to status 0 aborted', async () => {
    const controller = new AbortController();
    const { fetch } = fakeFetch(() => {
      controller.abort();
      throw new DOMException('The user aborted a request.', 'AbortError');
    });
    const result = failure(await submitUserInput(answer, { fetch, signal: controller.signal }));
    deepEqual([result.status, result.error.code], [0, 'aborted']);
  });

  it('stops the event stream when the signal aborts after the response arrived', async () => {
    const controller = new AbortController();
    const { response, control } = streamResponse([acceptedStream()], { hang: true });
    const { fetch } = fakeFetch(() => response);
    const result = await submitUserInput(answer, { fetch, signal: controller.signal });
    ok(result.ok);
    const seen: string[] = [];
    for await (const event of result.events) {
      seen.push(event.event);
      if (seen.length === 2) controller.abort();
    }
    deepEqual(seen, ['interaction_resolved', 'tool_result']);
    await control.cancelled;
  });

  it('calls the page fetch as a plain function (a real fetch against the test server)', async () => {
    // `window.fetch` called as a method of another object throws "Illegal invocation"; this would catch that.
    const result = failure(await submitUserInput(answer, { fetch: window.fetch, endpoint: '/__no_such_api__' }));
    equal(result.error.code === 'network_error', false, result.error.message);
    ok(result.status >= 400, `status ${result.status}`);
  });
});

describe('startChat', () => {
  it('POSTs { sessionId, message } to {endpoint}/chat and streams back typed events', async () => {
    const { fetch, calls } = fakeFetch(() => streamResponse([acceptedStream()]).response);
    const result = await startChat({ sessionId: 'sess-1', message: '帮我部署 🚀' }, { fetch, endpoint: '/agent' });
    ok(result.ok);
    equal((await collect(result.events)).length, ACCEPTED_EVENTS.length);
    equal(calls[0]!.url, '/agent/chat');
    equal(calls[0]!.init.body, '{"sessionId":"sess-1","message":"帮我部署 🚀"}');
  });

  it('maps refusals the same way as submitUserInput', async () => {
    const { fetch } = fakeFetch(() => jsonResponse({ error: { code: 'invalid_request', message: 'message is required' } }, 400));
    const result = failure(await startChat({ sessionId: 's', message: '' }, { fetch }));
    deepEqual([result.status, result.error.code], [400, 'invalid_request']);
  });
});

describe('fetchPending', () => {
  it('GETs {endpoint}/interactions/pending with the session id encoded, and returns null for none', async () => {
    const { fetch, calls } = fakeFetch(() => jsonResponse({ pending: null }));
    equal(await fetchPending('sess 1&x=2', { fetch }), null);
    equal(calls[0]!.url, '/api/interactions/pending?sessionId=sess%201%26x%3D2');
    equal(calls[0]!.init.method, 'GET');
  });

  it('returns the pending interaction, pending or expired', async () => {
    for (const status of ['pending', 'expired'] as const) {
      const pending = { ...userInputRequired, status, resumable: status === 'pending' };
      const { fetch } = fakeFetch(() => jsonResponse({ pending }));
      deepEqual(await fetchPending('sess-1', { fetch }), pending);
    }
  });

  it('throws ClientError unexpected_response for a pending without the required fields or status', async () => {
    for (const pending of [{ ...userInputRequired }, { ...userInputRequired, status: 'pending', title: 1 }, 'x']) {
      const { fetch } = fakeFetch(() => jsonResponse({ pending }));
      const error = await rejects(() => fetchPending('sess-1', { fetch }));
      ok(error instanceof ClientError && error.code === 'unexpected_response', `got ${String(error)}`);
    }
  });

  it('throws ClientError unexpected_response for a 200 that is not JSON', async () => {
    const { fetch } = fakeFetch(() => new Response('<html></html>', { status: 200 }));
    const error = await rejects(() => fetchPending('sess-1', { fetch }));
    ok(error instanceof ClientError && error.code === 'unexpected_response' && error.status === 200, `got ${String(error)}`);
  });

  it("throws ClientError carrying the contract's code and status for a refusal", async () => {
    const { fetch } = fakeFetch(() =>
      jsonResponse({ error: { code: 'invalid_request', message: 'sessionId is required', field: 'sessionId' } }, 400),
    );
    const error = await rejects(() => fetchPending('', { fetch }));
    ok(error instanceof ClientError, `got ${String(error)}`);
    deepEqual([error.status, error.code, error.field, error.message], [400, 'invalid_request', 'sessionId', 'sessionId is required']);
  });

  it('throws ClientError network_error (status 0) when fetch rejects', async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const error = await rejects(() => fetchPending('sess-1', { fetch }));
    ok(error instanceof ClientError && error.code === 'network_error' && error.status === 0, `got ${String(error)}`);
  });
});
