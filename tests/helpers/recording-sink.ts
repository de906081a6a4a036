/** An SseSink that keeps what a run wrote, for driving the loop without HTTP. */
import type { SseSink } from '../../plugin/core/host.js';
import type { ChatEventMap, ChatEventName } from '../../plugin/contract/schema.js';

export interface RecordingSink extends SseSink {
  events: Array<{ event: ChatEventName; data: any }>;
  /** Resolves when the stream ends. */
  ended: Promise<void>;
  /** Called synchronously on each send, before it is recorded. */
  onSend?: (event: ChatEventName, data: unknown) => void;
  /** Simulate the client leaving. */
  disconnect(): void;
}

export function recordingSink(): RecordingSink {
  const controller = new AbortController();
  let closed = false;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  const sink: RecordingSink = {
    events: [],
    ended,
    send<E extends ChatEventName>(event: E, data: ChatEventMap[E]) {
      if (closed) return;
      sink.onSend?.(event, data);
      sink.events.push({ event, data });
      if (event === 'done') sink.end();
    },
    comment() {},
    get signal() {
      return controller.signal;
    },
    get closed() {
      return closed;
    },
    end() {
      if (closed) return;
      closed = true;
      if (!controller.signal.aborted) controller.abort();
      resolveEnded();
    },
    disconnect() {
      controller.abort();
      sink.end();
    },
  };
  return sink;
}
