import { describe, it } from './helpers/bdd.js';
import { ChatStreamError, consumeChatEvents, readChatEvents } from '../../widget/sse-reader.js';
import type { ChatEvent } from '../../widget/chat-events.js';
import { deepEqual, equal, ok, throws, rejects } from './helpers/assert.js';
import {
  ACCEPTED_EVENTS,
  MULTIBYTE_TEXT,
  acceptedStream,
  byteByByte,
  collect,
  done,
  frame,
  interactionResolved,
  midCharacterOffsets,
  settle,
  splitAt,
  streamResponse,
  userInputRequired,
} from './helpers/sse-fixtures.js';

const read = (chunks: Array<string | Uint8Array>) => collect(readChatEvents(streamResponse(chunks).response));

describe('readChatEvents', () => {
  describe('line endings', () => {
    for (const [name, eol] of [
      ['LF', '\n'],
      ['CRLF', '\r\n'],
      ['lone CR', '\r'],
    ] as const) {
      it(`reads every event of a ${name} stream in order`, async () => {
        deepEqual(await read([acceptedStream(eol)]), ACCEPTED_EVENTS);
      });
    }

    it('keeps a CRLF pair split across two chunks as one line ending', async () => {
      const text = acceptedStream('\r\n');
      const cuts = [...text.matchAll(/\r\n/g)].map((m) => new TextEncoder().encode(text.slice(0, m.index! + 1)).length);
      deepEqual(await read(splitAt(text, cuts)), ACCEPTED_EVENTS);
    });
  });

  describe('chunk boundaries', () => {
    it('survives a stream delivered byte by byte', async () => {
      deepEqual(await read(byteByByte(acceptedStream('\r\n'))), ACCEPTED_EVENTS);
    });

    it('keeps CJK and emoji intact when a chunk boundary falls inside a character', async () => {
      const text = frame('message_delta', { text: MULTIBYTE_TEXT });
      const offsets = midCharacterOffsets(text);
      ok(offsets.length > 10, 'the fixture must contain multibyte characters');
      for (const offset of offsets) {
        const events = await read(splitAt(text, [offset]));
        deepEqual(events, [{ event: 'message_delta', data: { text: MULTIBYTE_TEXT } }], `cut at byte ${offset}`);
      }
    });

    it('reads a stream cut at every byte offset into two chunks', async () => {
      const text = frame('user_input_required', userInputRequired) + frame('done', done);
      const length = new TextEncoder().encode(text).length;
      for (let offset = 1; offset < length; offset++) {
        const events = await read(splitAt(text, [offset]));
        equal(events.length, 2, `cut at byte ${offset}`);
        deepEqual(events[0]!.data, userInputRequired, `cut at byte ${offset}`);
      }
    });

    it('dispatches the last event of a lone-CR stream whose final CR is the last byte', async () => {
      const text = 'event: done\rdata: {"reason":"paused"}\r\r';
      deepEqual(await read([text]), [{ event: 'done', data: { reason: 'paused' } }]);
      deepEqual(await read(byteByByte(text)), [{ event: 'done', data: { reason: 'paused' } }]);
    });

    it('does not double a CRLF line ending split after its CR at the end of a chunk', async () => {
      const text = 'event: message_delta\r\ndata: {"text":"a"}\r\n\r\n';
      const events = await read(splitAt(text, [text.indexOf('\r\n\r\n') + 1, text.indexOf('\r\n\r\n') + 3]));
      deepEqual(events, [{ event: 'message_delta', data: { text: 'a' } }]);
    });

    it('ignores a leading byte-order mark', async () => {
      deepEqual(await read([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf), frame('done', done)]), [{ event: 'done', data: done }]);
    });
  });

  describe('what is skipped', () => {
    it('skips comments and heartbeats, also between the lines of one event', async () => {
      const text = ': ping\n:\n: hello there\nevent: done\n: ping\ndata: {"reason":"paused"}\n\n: ping\n\n';
      deepEqual(await read([text]), [{ event: 'done', data: { reason: 'paused' } }]);
    });

    it('ignores a bad retry: and unknown fields without losing the event, and keeps the id', async () => {
      const text = 'id: 7\nretry: 3000\nretry: soon\nfoo: bar\nevent: done\ndata: {"reason":"completed"}\n\n';
      deepEqual(await read([text]), [{ event: 'done', data: done, id: '7' }]);
    });

    it('joins multiple data: lines with a newline before parsing the JSON', async () => {
      const text = 'event: message_delta\ndata: {"text":\ndata: "两行 data"\ndata: }\n\n';
      deepEqual(await read([text]), [{ event: 'message_delta', data: { text: '两行 data' } }]);
    });

    it('skips malformed JSON and carries on with the next event', async () => {
      const text = 'event: message_delta\ndata: {"text": "unterminated\n\n' + frame('message_delta', '{oops}') + frame('done', done);
      deepEqual(await read([text]), [{ event: 'done', data: done }]);
    });

    it('skips unknown events and events without a name', async () => {
      const text = frame('surprise', { text: 'x' }) + 'data: {"text":"no name"}\n\n' + frame('done', done);
      deepEqual(await read([text]), [{ event: 'done', data: done }]);
    });

    it('skips data that is JSON but not an object', async () => {
      const text = ['null', '[]', '42', '"text"', '[{"reason":"completed"}]'].map((d) => frame('done', d)).join('');
      deepEqual(await read([text + frame('done', done)]), [{ event: 'done', data: done }]);
    });

    for (const field of ['id', 'toolCallId', 'title', 'mode'] as const) {
      it(`skips user_input_required whose ${field} is missing or not a string`, async () => {
        const { [field]: _omitted, ...missing } = userInputRequired;
        const wrongType = { ...userInputRequired, [field]: 7 };
        const text = frame('user_input_required', missing) + frame('user_input_required', wrongType) + frame('done', done);
        deepEqual(await read([text]), [{ event: 'done', data: done }]);
      });
    }

    it('accepts user_input_required with only the four required strings (docs/protocol.md §3)', async () => {
      const minimal = { id: 'ask_x', toolCallId: 'call_x', title: 'Q', mode: 'text' };
      deepEqual(await read([frame('user_input_required', minimal)]), [{ event: 'user_input_required', data: minimal }]);
    });

    it('skips other events lacking the fields a consumer reads', async () => {
      const text =
        frame('message_delta', {}) +
        frame('done', { reason: 1 }) +
        frame('tool_result', { toolCallId: 'c' }) +
        frame('interaction_resolved', { requestId: 'r', toolCallId: 'c' }) +
        frame('error', { code: 'x' });
      deepEqual(await read([text]), []);
    });

    it('drops an event the stream ends before dispatching (no closing blank line)', async () => {
      deepEqual(await read([frame('done', done).trimEnd()]), []);
    });
  });

  describe('ending', () => {
    it('stops reading after done and cancels the body', async () => {
      const { response, control } = streamResponse([frame('done', done), frame('message_delta', { text: 'late' })], { hang: true });
      deepEqual(await collect(readChatEvents(response)), [{ event: 'done', data: done }]);
      await control.cancelled;
    });

    it('cancels the body when the consumer breaks out of the loop', async () => {
      const { response, control } = streamResponse([acceptedStream()], { hang: true });
      for await (const event of readChatEvents(response)) {
        equal(event.event, 'interaction_resolved');
        break;
      }
      await control.cancelled;
    });

    it('ends quietly on abort mid-stream, cancels the body and leaves no unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (e: PromiseRejectionEvent) => unhandled.push(e.reason);
      window.addEventListener('unhandledrejection', onUnhandled);
      try {
        const controller = new AbortController();
        const { response, control } = streamResponse([frame('message_delta', { text: 'a' })], { hang: true });
        const seen: ChatEvent[] = [];
        for await (const event of readChatEvents(response, { signal: controller.signal })) {
          seen.push(event);
          // The stream now hangs waiting for more; abort from outside, as a closed card would.
          setTimeout(() => controller.abort(new Error('card closed')), 0);
        }
        equal(seen.length, 1);
        const reason = await control.cancelled;
        ok(reason instanceof Error && reason.message === 'card closed', 'the abort reason reaches the body');
        await settle();
        deepEqual(unhandled.map(String), []);
      } finally {
        window.removeEventListener('unhandledrejection', onUnhandled);
      }
    });

    it('ends quietly when the body itself errors because the shared fetch signal aborted', async () => {
      const controller = new AbortController();
      let fail!: (e: unknown) => void;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(frame('message_delta', { text: 'a' })));
          fail = (e) => c.error(e);
        },
      });
      const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      const events: ChatEvent[] = [];
      for await (const event of readChatEvents(response, { signal: controller.signal })) {
        events.push(event);
        controller.abort();
        fail(new DOMException('The user aborted a request.', 'AbortError'));
      }
      equal(events.length, 1);
    });

    it('yields nothing and cancels the body when the signal is already aborted', async () => {
      const { response, control } = streamResponse([acceptedStream()]);
      deepEqual(await collect(readChatEvents(response, { signal: AbortSignal.abort() })), []);
      await control.cancelled;
    });

    it('cancels the body on abort even when nobody has started iterating', async () => {
      const controller = new AbortController();
      const { response, control } = streamResponse([acceptedStream()], { hang: true });
      const events = readChatEvents(response, { signal: controller.signal });
      controller.abort(new Error('left the page'));
      equal(String(await control.cancelled), 'Error: left the page');
      deepEqual(await collect(events), []);
    });

    it('turns a connection dropped mid-stream into ChatStreamError stream_failed', async () => {
      const { response } = streamResponse([frame('message_delta', { text: 'a' })], { failWith: new TypeError('network gone') });
      const seen: string[] = [];
      const error = await rejects(async () => {
        for await (const event of readChatEvents(response)) seen.push(event.event);
      });
      deepEqual(seen, ['message_delta']);
      ok(error instanceof ChatStreamError && error.code === 'stream_failed', `got ${String(error)}`);
    });

    it('stops with event_too_large when an event outgrows maxEventSize', async () => {
      const big = frame('message_delta', { text: 'x'.repeat(5000) });
      const chunks = splitAt(
        big,
        Array.from({ length: 20 }, (_, i) => (i + 1) * 300),
      );
      const error = await rejects(() => collect(readChatEvents(streamResponse(chunks).response, { maxEventSize: 1000 })));
      ok(error instanceof ChatStreamError && error.code === 'event_too_large', `got ${String(error)}`);
    });
  });

  describe('frame ids and retry (docs/protocol.md §11)', () => {
    it('gives each event the id of its own frame, and none to a frame without one', async () => {
      const text =
        'retry: 1000\n\n: ping\n\n' +
        'id: run_1.1\n' +
        frame('message_delta', { text: 'a' }) +
        frame('message_delta', { text: 'b' }) +
        'event: done\nid: run_1.2\ndata: {"reason":"completed"}\n\n';
      deepEqual(await read([text]), [
        { event: 'message_delta', data: { text: 'a' }, id: 'run_1.1' },
        { event: 'message_delta', data: { text: 'b' } },
        { event: 'done', data: done, id: 'run_1.2' },
      ]);
    });

    it('an empty id: names no frame', async () => {
      deepEqual(await read(['id:\n' + frame('done', done)]), [{ event: 'done', data: done }]);
    });

    it('keeps the id of a frame cut byte by byte', async () => {
      const text = 'id: r.12\n' + frame('message_delta', { text: MULTIBYTE_TEXT });
      deepEqual(await read(byteByByte(text)), [{ event: 'message_delta', data: { text: MULTIBYTE_TEXT }, id: 'r.12' }]);
    });

    it('reports each valid retry: value to onRetry, ignoring one that is not a number', async () => {
      const retries: number[] = [];
      const text = 'retry: 1000\n\nretry: soon\n\n' + frame('message_delta', { text: 'a' }) + 'retry: 2500\n' + frame('done', done);
      await collect(readChatEvents(streamResponse([text]).response, { onRetry: (ms) => retries.push(ms) }));
      deepEqual(retries, [1000, 2500]);
    });

    it('stops at done by default, and reads on past it with readPastDone until the body ends', async () => {
      const text = frame('done', { reason: 'paused' }) + frame('interaction_resolved', interactionResolved) + frame('done', done);
      deepEqual(
        (await read([text])).map((e) => e.event),
        ['done'],
      );
      const events = await collect(readChatEvents(streamResponse([text]).response, { readPastDone: true }));
      deepEqual(
        events.map((e) => e.event),
        ['done', 'interaction_resolved', 'done'],
      );
    });
  });

  describe('callbacks', () => {
    it('calls onEvent for each accepted event, in order, as it yields', async () => {
      const called: string[] = [];
      const yielded: string[] = [];
      const events = readChatEvents(streamResponse([acceptedStream()]).response, { onEvent: (e) => called.push(e.event) });
      for await (const event of events) {
        equal(called.at(-1), event.event, 'onEvent runs before the event is yielded');
        yielded.push(event.event);
      }
      deepEqual(called, yielded);
      equal(called.length, ACCEPTED_EVENTS.length);
    });

    it('consumeChatEvents resolves with the done reason, or null without one', async () => {
      equal(await consumeChatEvents(streamResponse([acceptedStream()]).response), 'completed');
      equal(await consumeChatEvents(streamResponse([frame('message_delta', { text: 'a' })]).response), null);
    });
  });

  describe('responses that are not chat streams', () => {
    for (const status of [400, 404, 409, 500, 503]) {
      it(`throws ChatStreamError http_status for HTTP ${status}, without reading the body`, () => {
        const { response } = streamResponse([acceptedStream()], { status });
        const error = throws(() => readChatEvents(response));
        ok(error instanceof ChatStreamError, `got ${String(error)}`);
        equal(error.code, 'http_status');
        equal(error.status, status);
        equal(response.bodyUsed, false);
      });
    }

    for (const contentType of ['application/json', 'text/plain', 'text/event-streamx', null]) {
      it(`throws ChatStreamError not_event_stream for content-type ${String(contentType)}`, () => {
        const error = throws(() => readChatEvents(streamResponse([acceptedStream()], { contentType }).response));
        ok(error instanceof ChatStreamError && error.code === 'not_event_stream', `got ${String(error)}`);
      });
    }

    it('accepts text/event-stream in any case and with parameters', async () => {
      const response = streamResponse([frame('done', done)], { contentType: 'Text/Event-Stream ; charset=UTF-8' }).response;
      deepEqual(await collect(readChatEvents(response)), [{ event: 'done', data: done }]);
    });

    it('throws no_body for a bodiless event-stream response', () => {
      const response = new Response(null, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      const error = throws(() => readChatEvents(response));
      ok(error instanceof ChatStreamError && error.code === 'no_body', `got ${String(error)}`);
    });
  });
});
