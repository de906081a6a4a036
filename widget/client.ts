/**
 * The widget's calls to the agent server (CONTRACT.md §4, §5, §7). HTTP refusals and network failures are
 * values, not exceptions, for the two streaming calls: the card must show "already answered" or "expired"
 * as a state, and a `try` around every submit would hide which failure it was. `fetch` is injectable so a
 * host can add credentials or headers, and tests can drive it with real Responses.
 */
import { isPendingInteraction, isRecord, type ChatEvent, type PendingInteraction } from './chat-events.js';
import { isEventStream, readChatEvents } from './sse-reader.js';

export interface ClientOptions {
  /** Base path of the API routes, without a trailing slash. @default '/api' */
  endpoint?: string;
  /** The fetch to call; wraps auth or headers for a host. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Aborts the request and, for chat streams, the reading of the events. */
  signal?: AbortSignal;
}

export interface InteractionReceipt {
  requestId: string;
  toolCallId: string;
  status: string;
  at: string;
}

/**
 * A refused call. `code` is the contract's error code (`invalid_answer`, `already_answered`, …) when the
 * server sent one, else `network_error` (status 0), `aborted` (status 0), `http_error` (an error status with
 * no contract body) or `unexpected_response` (a 2xx that is not what the route promises).
 */
export interface ClientErrorInfo {
  code: string;
  message: string;
  field?: string;
  /** With `already_answered`: the first answer's receipt. */
  receipt?: InteractionReceipt;
}

export type ContinueResult =
  | { ok: true; response: Response; events: AsyncIterable<ChatEvent> }
  | { ok: false; status: number; error: ClientErrorInfo };

/** Thrown by {@link fetchPending}, which has no result union to carry a failure. */
export class ClientError extends Error implements ClientErrorInfo {
  override readonly name = 'ClientError';
  readonly code: string;
  readonly status: number;
  readonly field?: string;
  readonly receipt?: InteractionReceipt;

  constructor(status: number, info: ClientErrorInfo, options?: { cause?: unknown }) {
    super(info.message, options);
    this.status = status;
    this.code = info.code;
    if (info.field !== undefined) this.field = info.field;
    if (info.receipt !== undefined) this.receipt = info.receipt;
  }
}

export interface ContinueRequest {
  sessionId: string;
  requestId: string;
  selections: string[];
  customInput: string;
  cancelled: boolean;
}

export interface ChatRequest {
  sessionId: string;
  message: string;
}

/** Sends the user's answer; on 200 the continued run streams back as `events`. */
export function submitUserInput(body: ContinueRequest, options: ClientOptions = {}): Promise<ContinueResult> {
  return postChatStream('/chat/continue', body, options);
}

/** Starts a chat turn (`POST {endpoint}/chat`); the run streams back as `events`. */
export function startChat(body: ChatRequest, options: ClientOptions = {}): Promise<ContinueResult> {
  return postChatStream('/chat', body, options);
}

/**
 * The session's open (or recently expired) interaction, for restoring a card after a page reload;
 * `null` when there is none.
 * @throws {ClientError} with the server's error code, or `network_error`, `aborted`, `http_error`,
 *   `unexpected_response`.
 */
export async function fetchPending(sessionId: string, options: ClientOptions = {}): Promise<PendingInteraction | null> {
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

async function postChatStream(path: string, body: unknown, options: ClientOptions): Promise<ContinueResult> {
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
