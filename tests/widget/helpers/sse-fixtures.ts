/**
 * Chat-stream fixtures for the reader and client tests: event payloads as the contract writes them, and
 * builders that turn text into real `Response(new ReadableStream(...))` objects delivered in chosen chunks
 * (after eventsource-parser's `test/fixtures.ts`, which splits streams at awkward boundaries).
 */
import type { ChatEventMap } from '../../../plugin/contract/schema.js';

const encoder = new TextEncoder();

export const REQUEST_ID = 'ask_AAAAAAAAAAAAAAAAAAAAAA';

export const userInputRequired: ChatEventMap['user_input_required'] = {
  id: REQUEST_ID,
  toolCallId: 'call_1',
  sessionId: 'sess-1',
  title: '请选择执行方式 🚀',
  description: '先分析还是直接执行？',
  mode: 'single',
  options: [
    { id: 'safe', label: '先分析', recommended: true },
    { id: 'fast', label: '直接执行 ⚡' },
  ],
  allowCustom: true,
  submitLabel: '提交',
  expiresAt: '2030-01-01T00:30:00.000Z',
  resumable: true,
};

export const interactionResolved: ChatEventMap['interaction_resolved'] = {
  requestId: REQUEST_ID,
  toolCallId: 'call_1',
  status: 'answered',
  at: '2030-01-01T00:01:00.000Z',
  selections: ['safe'],
  customInputLength: 0,
};

export const toolResult: ChatEventMap['tool_result'] = {
  toolCallId: 'call_1',
  name: 'ask_user',
  content: '{"selections":["safe"],"customInput":"","cancelled":false}',
  isError: false,
};

/** Multibyte text: 3-byte CJK, 4-byte emoji, a ZWJ sequence, and a 2-byte Latin letter. */
export const MULTIBYTE_TEXT = '你好，世界 👋🏽 👩‍💻 café';

export const messageDelta: ChatEventMap['message_delta'] = { text: MULTIBYTE_TEXT };
export const done: ChatEventMap['done'] = { reason: 'completed' };
export const errorEvent: ChatEventMap['error'] = { code: 'model_failed', message: '模型调用失败' };

/** One SSE frame: `event:` line, one `data:` line of JSON, blank line. */
export function frame(event: string, data: unknown, eol = '\n'): string {
  return `event: ${event}${eol}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${eol}${eol}`;
}

/** A whole accepted-answer stream in contract order (docs/protocol.md §4), with heartbeats between frames. */
export function acceptedStream(eol = '\n'): string {
  return [
    `: ping${eol}`,
    frame('interaction_resolved', interactionResolved, eol),
    frame('tool_result', toolResult, eol),
    `: ping${eol}${eol}`,
    frame('message_delta', messageDelta, eol),
    frame('user_input_required', userInputRequired, eol),
    frame('error', errorEvent, eol),
    frame('done', done, eol),
  ].join('');
}

export const ACCEPTED_EVENTS = [
  { event: 'interaction_resolved', data: interactionResolved },
  { event: 'tool_result', data: toolResult },
  { event: 'message_delta', data: messageDelta },
  { event: 'user_input_required', data: userInputRequired },
  { event: 'error', data: errorEvent },
  { event: 'done', data: done },
];

/** UTF-8 bytes of `text` cut at the given byte offsets (which may fall inside a character). */
export function splitAt(text: string, offsets: number[]): Uint8Array[] {
  const bytes = encoder.encode(text);
  const cuts = [0, ...offsets.filter((o) => o > 0 && o < bytes.length).sort((a, b) => a - b), bytes.length];
  const chunks: Uint8Array[] = [];
  for (let i = 1; i < cuts.length; i++) chunks.push(bytes.slice(cuts[i - 1], cuts[i]));
  return chunks;
}

/** Every byte its own chunk. */
export const byteByByte = (text: string): Uint8Array[] => Array.from(encoder.encode(text), (b) => Uint8Array.of(b));

/** Offsets of every byte that is not the first byte of its UTF-8 character: cutting there splits a character. */
export function midCharacterOffsets(text: string): number[] {
  const bytes = encoder.encode(text);
  const offsets: number[] = [];
  bytes.forEach((b, i) => {
    if ((b & 0xc0) === 0x80) offsets.push(i);
  });
  return offsets;
}

export interface StreamControl {
  /** Resolves with the cancel reason once the consumer cancels the body. */
  cancelled: Promise<unknown>;
  /** Number of chunks the consumer pulled. */
  readonly pulled: number;
}

export interface StreamResponseOptions {
  status?: number;
  contentType?: string | null;
  /** Keep the body open after the last chunk (a live stream waiting for more), instead of closing it. */
  hang?: boolean;
  /** Error the body after the last chunk, as a dropped connection does. */
  failWith?: unknown;
}

/** A real Response whose body delivers `chunks` one per pull. */
export function streamResponse(
  chunks: Array<string | Uint8Array>,
  { status = 200, contentType = 'text/event-stream; charset=utf-8', hang = false, failWith }: StreamResponseOptions = {},
): { response: Response; control: StreamControl } {
  let resolveCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => (resolveCancel = resolve));
  let pulled = 0;
  const queue = chunks.map((c) => (typeof c === 'string' ? encoder.encode(c) : c));
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = queue.shift();
        if (next) {
          pulled++;
          controller.enqueue(next);
          return;
        }
        if (failWith !== undefined) controller.error(failWith);
        else if (!hang) controller.close();
        // hang: never enqueue again; the pull promise stays pending until the consumer cancels.
        else return new Promise<void>(() => {});
      },
      cancel(reason) {
        resolveCancel(reason ?? 'cancelled');
      },
    },
    { highWaterMark: 0 },
  );
  const headers = new Headers();
  if (contentType !== null) headers.set('content-type', contentType);
  return {
    response: new Response(body, { status, headers }),
    control: {
      cancelled,
      get pulled() {
        return pulled;
      },
    },
  };
}

/** A JSON Response, as the error bodies and the pending route send them. */
export const jsonResponse = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

/** Drains an async iterable into an array. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** Lets queued promise callbacks (and any unhandled rejection they raise) run before the next assertion. */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => new Promise<void>((r) => setTimeout(r, 0)));
