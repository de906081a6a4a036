/**
 * The client's calls (client.ts), in a module of their own so bundles can load them on the first call.
 * Not part of the public surface: client.ts is.
 */
import { isPendingInteraction, isRecord, type PendingInteraction } from './chat-events.js';
import { ClientError, type ClientErrorInfo, type ClientOptions, type ContinueResult } from './client.js';
import { isEventStream, readChatEvents } from './sse-reader.js';

/** `fetchPending` of client.ts. */
export async function getPending(sessionId: string, options: ClientOptions = {}): Promise<PendingInteraction | null> {
  const url = `${base(options)}/interactions/pending?sessionId=${encodeURIComponent(sessionId)}`;
  const sent = await send(url, { method: 'GET', headers: { accept: 'application/json' } }, options);
  if (!sent.ok) throw new ClientError(sent.status, sent.error);
  const response = sent.response;
  if (!response.ok) throw new ClientError(response.status, await readErrorBody(response, `GET ${url}`));
  const body = await readJson(response);
  if (isRecord(body) && body.pending === null) return null;
  if (isRecord(body) && isPendingInteraction(body.pending)) return body.pending;
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
  if (!isEventStream(response) || !response.body) {
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
  return { ok: true, response, events: readChatEvents(response, options.signal ? { signal: options.signal } : {}) };
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
  const body = await readJson(response);
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string') {
    const info: ClientErrorInfo = { code: error.code, message: error.message };
    if (typeof error.field === 'string') info.field = error.field;
    const receipt = error.receipt;
    if (
      isRecord(receipt) &&
      typeof receipt.requestId === 'string' &&
      typeof receipt.toolCallId === 'string' &&
      typeof receipt.status === 'string' &&
      typeof receipt.at === 'string'
    ) {
      info.receipt = { requestId: receipt.requestId, toolCallId: receipt.toolCallId, status: receipt.status, at: receipt.at };
    }
    return info;
  }
  return { code: 'http_error', message: `${what} failed with HTTP ${response.status} and no error body the contract describes.` };
}
