/**
 * The client's calls (client.ts), in a module of their own so bundles can load them on the first call.
 * Not part of the public surface: client.ts is. It imports modules below client.ts, never client.ts, and
 * uses only what the widget exports anyway (the bundle keeps the entry's exports as they are, so code the
 * entry and this chunk share must be public).
 */
import { isPendingInteraction, type PendingInteraction } from './chat-events.js';
import {
  ClientError,
  type ChatEventStream,
  type ChatRequest,
  type ClientErrorInfo,
  type ClientOptions,
  type ContinueRequest,
  type ContinueResult,
  type ResumeOptions,
  type StopResult,
  type StreamOptions,
  type SubmitOptions,
} from './client-types.js';
import { defaultStorage, keptIdKey, ReconnectingStream, type Reopen } from './reconnecting-stream.js';
import { ChatStreamError } from './sse-reader.js';

/**
 * The stream reader's module, in before a stream's request goes out: a read that first needed it during a
 * network cut could not fetch it, and a browser does not fetch a module again once its fetch failed.
 */
const readerReady = () => import('./sse-stream.js');

/** `value[key]` of a parsed JSON value, whatever it is: `undefined` for null and for a missing key. */
const member = (value: unknown, key: string): unknown => (value as Record<string, unknown> | null | undefined)?.[key];

/** `fetchPending` of client.ts. */
export async function getPending(sessionId: string, options: ClientOptions = {}): Promise<PendingInteraction | null> {
  const url = `${base(options)}/interactions/pending?sessionId=${encodeURIComponent(sessionId)}`;
  const sent = await send(url, { method: 'GET', headers: { accept: 'application/json' } }, options);
  if (!sent.ok) throw new ClientError(sent.status, sent.error);
  const response = sent.response;
  if (!response.ok) throw new ClientError(response.status, await readErrorBody(response, `GET ${url}`));
  const pending = member(await readJson(response), 'pending');
  if (pending === null) return null;
  if (isPendingInteraction(pending)) return pending;
  throw new ClientError(response.status, {
    code: 'unexpected_response',
    message: `GET ${url} answered 200 without { pending: null | { id, toolCallId, title, mode, status } }.`,
  });
}

type Sent = { ok: true; response: Response } | { ok: false; status: 0; error: ClientErrorInfo };

/** `startChat` of client.ts. A cut stream picks up from the run's frames, after the last one yielded. */
export async function postChat(body: ChatRequest, options: StreamOptions): Promise<ContinueResult> {
  const reopen = pickUp(body.sessionId, options);
  return openStream(base(options) + '/chat', postInit(body), body.sessionId, options, reopen);
}

/**
 * `submitUserInput` of client.ts. A stream cut before its first frame has no id to pick up after, so the
 * answer itself is sent again, with the same key: the server answers with the first stream, replayed.
 */
export async function postAnswer(body: ContinueRequest, options: SubmitOptions): Promise<ContinueResult> {
  const url = base(options) + '/chat/continue';
  const init = postInit(body);
  const key = options.idempotencyKey ?? ANSWER_KEYS.keyFor(init.body as string);
  (init.headers as Record<string, string>)['idempotency-key'] = key;
  const afterId = pickUp(body.sessionId, options);
  const reopen: Reopen = (lastEventId, signal) =>
    lastEventId === undefined
      ? fetchWith(options)(url, { ...init, signal }).then((response) => ({ response, pickedUp: false }))
      : afterId(lastEventId, signal);
  return openStream(url, init, body.sessionId, options, reopen);
}

/** `resumeChat` of client.ts: the first `GET …/chat/stream` is this call's own, and its refusals are results. */
export async function getStream(sessionId: string, options: ResumeOptions): Promise<ContinueResult> {
  const storage = options.storage === undefined ? defaultStorage() : options.storage;
  let lastEventId = options.lastEventId ?? undefined;
  if (options.lastEventId === undefined) {
    try {
      lastEventId = storage?.getItem(keptIdKey(sessionId)) ?? undefined;
    } catch {
      // No kept id: the run's frames from its first.
    }
  }
  const url = streamUrl(sessionId, options);
  const sent = await send(url, { method: 'GET', headers: streamHeaders(lastEventId) }, options, true);
  if (!sent.ok) return sent;
  const { response } = sent;
  if (response.status === 204) {
    return { ok: true, response, events: new ReconnectingStream({ sessionId, options }) };
  }
  if (!response.ok) {
    if (response.status === 410) {
      try {
        storage?.removeItem(keptIdKey(sessionId));
      } catch {
        // As above.
      }
    }
    return { ok: false, status: response.status, error: await readErrorBody(response, `GET ${url}`) };
  }
  return streamResult(url, 'GET', response, () => {
    const init = { sessionId, first: { response, pickedUp: true }, reopen: pickUp(sessionId, options), options };
    return new ReconnectingStream(lastEventId === undefined ? init : { ...init, lastEventId });
  });
}

/** `stopChat` of client.ts. */
export async function postStop(sessionId: string, options: ClientOptions): Promise<StopResult> {
  const url = `${base(options)}/chat/stop`;
  const init = postInit({ sessionId });
  (init.headers as Record<string, string>).accept = 'application/json';
  const sent = await send(url, init, options);
  if (!sent.ok) throw new ClientError(sent.status, sent.error);
  const response = sent.response;
  if (!response.ok) throw new ClientError(response.status, await readErrorBody(response, `POST ${url}`));
  const stopped = member(await readJson(response), 'stopped');
  if (typeof stopped === 'boolean') return { stopped };
  throw new ClientError(response.status, {
    code: 'unexpected_response',
    message: `POST ${url} answered 200 without { stopped: boolean }.`,
  });
}

/**
 * One random `Idempotency-Key` per answer, the same each time that answer (the same body: session, request and
 * values) is sent again from this page, by the card's retry button or the host. Another answer gets another key.
 */
class AnswerKeys {
  private readonly _keys = new Map<string, string>();

  keyFor(body: string): string {
    let key = this._keys.get(body);
    if (key === undefined) {
      key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
      // A retry follows its answer closely; a few answers back is plenty.
      if (this._keys.size >= 32) this._keys.delete(this._keys.keys().next().value!);
      this._keys.set(body, key);
    }
    return key;
  }
}

const ANSWER_KEYS = new AnswerKeys();

const postInit = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify(body),
});

const streamUrl = (sessionId: string, options: ClientOptions) => `${base(options)}/chat/stream?sessionId=${encodeURIComponent(sessionId)}`;

const streamHeaders = (lastEventId: string | undefined): Record<string, string> =>
  lastEventId === undefined ? { accept: 'text/event-stream' } : { accept: 'text/event-stream', 'last-event-id': lastEventId };

/** Reconnects through `GET …/chat/stream`, after the last id (or, with none yet, from the run's first frame). */
function pickUp(sessionId: string, options: ClientOptions): Reopen {
  const url = streamUrl(sessionId, options);
  return (lastEventId, signal) =>
    fetchWith(options)(url, { method: 'GET', headers: streamHeaders(lastEventId), signal }).then((response) => ({
      response,
      pickedUp: true,
    }));
}

/** A POST that streams: its refusals are results; its 200 is read by a stream that reconnects. */
async function openStream(
  url: string,
  init: RequestInit,
  sessionId: string,
  options: StreamOptions,
  reopen: Reopen,
): Promise<ContinueResult> {
  const sent = await send(url, init, options, true);
  if (!sent.ok) return sent;
  const { response } = sent;
  if (!response.ok) return { ok: false, status: response.status, error: await readErrorBody(response, `POST ${url}`) };
  return streamResult(
    url,
    'POST',
    response,
    () => new ReconnectingStream({ sessionId, first: { response, pickedUp: false }, reopen, options }),
  );
}

function streamResult(url: string, method: string, response: Response, open: () => ChatEventStream): ContinueResult {
  try {
    // Checks at once that this is an event stream with a body; reading starts when `events` is iterated.
    return { ok: true, response, events: open() };
  } catch (cause) {
    if (!(cause instanceof ChatStreamError)) throw cause;
    void response.body?.cancel().catch(() => {});
    return {
      ok: false,
      status: response.status,
      error: {
        code: 'unexpected_response',
        message: `${method} ${url} answered ${response.status} with ${response.headers.get('content-type') ?? 'no content-type'}, not text/event-stream.`,
      },
    };
  }
}

/** The host's fetch, called as a plain function: `window.fetch` invoked as a method of another object throws "Illegal invocation". */
const fetchWith =
  ({ fetch: fetchImpl = globalThis.fetch }: ClientOptions) =>
  (url: string, init: RequestInit) =>
    fetchImpl(url, init);

/** `stream`: the request answers with a stream, so its reader is loaded first (a failure is a network error). */
async function send(url: string, init: RequestInit, options: ClientOptions, stream = false): Promise<Sent> {
  const { signal } = options;
  try {
    if (stream) await readerReady();
    const response = await fetchWith(options)(url, signal ? { ...init, signal } : init);
    return { ok: true, response };
  } catch (cause) {
    if (signal?.aborted) return { ok: false, status: 0, error: { code: 'aborted', message: `${init.method} ${url} was aborted.` } };
    const reason = cause instanceof Error ? cause.message : String(cause);
    return {
      ok: false,
      status: 0,
      error: { code: 'network_error', message: `Could not reach ${init.method} ${url} (${reason}); check the connection and retry.` },
    };
  }
}

const base = ({ endpoint = '/api' }: ClientOptions) => endpoint.replace(/\/+$/, '');

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

/** The contract's `{ error: { code, message, field?, receipt? } }`, or a generic error when the body is not that. */
async function readErrorBody(response: Response, what: string): Promise<ClientErrorInfo> {
  const error = member(await readJson(response), 'error');
  const [code, message, field] = ['code', 'message', 'field'].map((key) => member(error, key));
  if (typeof code === 'string' && typeof message === 'string') {
    const info: ClientErrorInfo = { code, message };
    if (typeof field === 'string') info.field = field;
    const receipt = member(error, 'receipt');
    const [requestId, toolCallId, status, at] = ['requestId', 'toolCallId', 'status', 'at'].map((key) => member(receipt, key));
    if (typeof requestId === 'string' && typeof toolCallId === 'string' && typeof status === 'string' && typeof at === 'string') {
      info.receipt = { requestId, toolCallId, status, at };
    }
    return info;
  }
  return { code: 'http_error', message: `${what} failed with HTTP ${response.status} and no error body the contract describes.` };
}
