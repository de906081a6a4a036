/**
 * Reads a chat stream (docs/protocol.md §3) from a `fetch` Response. The chat endpoints are POSTs, which
 * `EventSource` cannot send, so the widget reads the body itself: bytes → TextDecoderStream (keeps a
 * multibyte character split across chunks whole) → eventsource-parser (line endings, comments, multi-line
 * `data:`) → `parseChatEvent` (JSON and minimal-field checks). What does not fit is skipped. That pipeline
 * lives in sse-stream.ts, loaded on the first read: a page only showing a card never downloads the parser.
 */
import type { DoneReason } from '../plugin/contract/schema.js';
import type { ChatEvent } from './chat-events.js';
import { ChatStreamError } from './sse-errors.js';
import type { ReadChatEventsOptions } from './sse-types.js';

export { ChatStreamError, type ChatStreamErrorCode } from './sse-errors.js';
export type { ReadChatEventsOptions } from './sse-types.js';

/** True for `text/event-stream`, with or without parameters such as `; charset=utf-8`. */
export function isEventStream(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return type.split(';')[0]!.trim().toLowerCase() === 'text/event-stream';
}

/**
 * Checks that `response` is a 2xx `text/event-stream` with a body and returns that body.
 * @throws {ChatStreamError} `http_status`, `not_event_stream` or `no_body`.
 */
export function eventStreamBody(response: Response): ReadableStream<Uint8Array<ArrayBuffer>> {
  if (!response.ok) {
    throw new ChatStreamError(
      'http_status',
      `Expected a 2xx text/event-stream response, got HTTP ${response.status}; read the JSON error body instead.`,
      response.status,
    );
  }
  if (!isEventStream(response)) {
    const type = response.headers.get('content-type') ?? 'no content-type';
    throw new ChatStreamError(
      'not_event_stream',
      `Expected content-type text/event-stream, got ${JSON.stringify(type)}; is the endpoint a chat stream?`,
      response.status,
    );
  }
  if (!response.body) {
    throw new ChatStreamError('no_body', 'The event-stream response has no body to read.', response.status);
  }
  if (response.bodyUsed) {
    throw new ChatStreamError('stream_failed', 'The response body was already read; a chat stream is read once.', response.status);
  }
  return response.body;
}

/**
 * The events of a chat stream, in order. Validates the response at once (throws {@link ChatStreamError}
 * synchronously), then reads lazily as the iterable is consumed. Reading stops after `done`, the last event
 * of every stream, or when the body ends, the signal aborts, or the consumer breaks out of the loop.
 * Single use: the body can be read only once.
 */
export function readChatEvents(response: Response, options: ReadChatEventsOptions = {}): AsyncIterableIterator<ChatEvent> {
  const body = eventStreamBody(response);
  const { signal } = options;
  // Until the first read, an abort still releases the connection: a stream nobody iterates must not hang on.
  const beforeReading = () => {
    if (!body.locked) void body.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', beforeReading, { once: true });
  return iterate(body, options, () => signal?.removeEventListener('abort', beforeReading));
}

async function* iterate(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  options: ReadChatEventsOptions,
  started: () => void,
): AsyncGenerator<ChatEvent, void, undefined> {
  // `yield*` forwards the consumer's `return()` (a `break`), so the pipeline's cleanup still runs.
  yield* (await import('./sse-stream.js')).readEvents(body, options, started);
}

/**
 * Reads a whole chat stream, calling `onEvent` for each event, and resolves with the `done` reason
 * (or `null` when the stream ended or was aborted without one).
 */
export async function consumeChatEvents(response: Response, options: ReadChatEventsOptions = {}): Promise<DoneReason | null> {
  let reason: DoneReason | null = null;
  for await (const event of readChatEvents(response, options)) {
    if (event.event === 'done') reason = event.data.reason;
  }
  return reason;
}
