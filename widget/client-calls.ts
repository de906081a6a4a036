/**
 * The client's calls (client.ts), in a module of their own so bundles can load them on the first call.
 * Not part of the public surface: client.ts is. It imports modules below client.ts, never client.ts, and
 * uses only what the widget exports anyway (the bundle keeps the entry's exports as they are, so code the
 * entry and this chunk share must be public).
 */
import { isPendingInteraction, type ChatEvent, type PendingInteraction } from './chat-events.js';
import { ClientError, type ClientErrorInfo, type ClientOptions, type ContinueResult } from './client-types.js';
import { ChatStreamError } from './sse-errors.js';
import { readChatEvents } from './sse-reader.js';

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

/** `submitUserInput` and `startChat` of client.ts. */
export async function postChatStream(path: string, body: unknown, options: ClientOptions): Promise<ContinueResult> {
  const url = base(options) + path;
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  };
  const sent = await send(url, init, options);
  if (!sent.ok) return sent;
  const { response } = sent;
  if (!response.ok) return { ok: false, status: response.status, error: await readErrorBody(response, `POST ${url}`) };
  let events: AsyncIterable<ChatEvent>;
  try {
    // Checks at once that this is an event stream with a body; reading starts when `events` is iterated.
    events = readChatEvents(response, options.signal ? { signal: options.signal } : {});
  } catch (cause) {
    if (!(cause instanceof ChatStreamError)) throw cause;
    void response.body?.cancel().catch(() => {});
    return {
      ok: false,
      status: response.status,
      error: {
        code: 'unexpected_response',
        message: `POST ${url} answered ${response.status} with ${response.headers.get('content-type') ?? 'no content-type'}, not text/event-stream.`,
      },
    };
  }
  return { ok: true, response, events };
}

async function send(url: string, init: RequestInit, { fetch: fetchImpl = globalThis.fetch, signal }: ClientOptions): Promise<Sent> {
  try {
    // Called as a plain function: `window.fetch` invoked as a method of another object throws "Illegal invocation".
    const response = await fetchImpl(url, signal ? { ...init, signal } : init);
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
