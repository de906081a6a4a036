/**
 * The reading half of sse-reader.ts, in a module of its own so that bundles can load it (and
 * eventsource-parser with it) only when a chat stream is first read. Not part of the public surface. It
 * imports only modules below sse-reader.ts (errors, options), never sse-reader.ts itself: no cycle.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { parseChatEvent, type ChatEvent } from './chat-events.js';
import { ChatStreamError } from './sse-errors.js';
import type { ReadChatEventsOptions } from './sse-types.js';

const DEFAULT_MAX_EVENT_SIZE = 1024 * 1024;
const noop = () => {};

/**
 * The SSE spec ends a line at "a U+000D CARRIAGE RETURN (CR) character not followed by a LF", and a CR that
 * is the last character of the stream qualifies. A streaming parser cannot know that while it waits for the
 * next chunk, so a lone-CR stream's closing blank line would be lost with its last event. At the end of the
 * text, a trailing CR gets the LF it may legally carry: together one line ending, never an extra one.
 */
function finalCarriageReturn(): TransformStream<string, string> {
  let last = '';
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk) last = chunk;
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (last.endsWith('\r')) controller.enqueue('\n');
    },
  });
}

export async function* readEvents(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  { signal, onEvent, onRetry, readPastDone = false, maxEventSize = DEFAULT_MAX_EVENT_SIZE }: ReadChatEventsOptions,
  started: () => void,
): AsyncGenerator<ChatEvent, void, undefined> {
  started();
  if (signal?.aborted) {
    await body.cancel(signal.reason).catch(noop);
    return;
  }
  let tooLarge = false;
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(finalCarriageReturn())
    .pipeThrough(
      new EventSourceParserStream({
        maxBufferSize: maxEventSize,
        ...(onRetry && { onRetry }),
        // Unknown fields and bad `retry:` values are ignorable per the SSE spec; only overflow ends the stream.
        onError: (error) => {
          if ((error as { type?: string }).type === 'max-buffer-size-exceeded') tooLarge = true;
        },
      }),
    )
    .getReader();
  // Cancelling resolves a pending read() with `done`, so an abort ends the loop below without a rejection.
  const onAbort = () => void reader.cancel(signal?.reason).catch(noop);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      let step: ReadableStreamReadResult<{ id?: string | undefined; event?: string | undefined; data: string }>;
      try {
        step = await reader.read();
      } catch (cause) {
        if (signal?.aborted) return;
        if (tooLarge) {
          throw new ChatStreamError('event_too_large', `An event exceeded ${maxEventSize} characters; reading stopped.`, 0, { cause });
        }
        throw new ChatStreamError('stream_failed', `The chat stream broke off: ${String(cause)}`, 0, { cause });
      }
      if (step.done || signal?.aborted) return;
      const event = parseChatEvent(step.value.event, step.value.data);
      if (!event) continue;
      // An empty `id:` only resets the last id in EventSource terms; it names no frame.
      if (step.value.id) event.id = step.value.id;
      onEvent?.(event);
      yield event;
      if (event.event === 'done' && !readPastDone) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Runs on break/return too: release the connection instead of leaving the body half-read.
    reader.cancel().catch(noop);
  }
}
