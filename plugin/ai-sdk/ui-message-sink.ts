/**
 * A chat stream for pages built on the AI SDK's `useChat`: an SseSink that writes the run's events into
 * a UI message stream (`createUIMessageStream`) instead of the contract's SSE. Model text becomes text
 * parts; every other contract event becomes a data part named after it (`data-user_input_required`,
 * `data-tool_result`, `data-interaction_resolved`, `data-done`), carrying the event's data unchanged, so
 * the page can hand `data-user_input_required` to `<ask-user-card>` as its `request`.
 */
import type { UIMessageStreamWriter } from 'ai';
import type { ChatEventMap, ChatEventName } from '../contract/schema.js';
import type { SseSink } from '../core/host.js';

export interface UiMessageSinkOptions {
  /** The request's signal: the run stops when the page goes away. @default never aborted */
  signal?: AbortSignal;
}

export function uiMessageSink(writer: UIMessageStreamWriter, options: UiMessageSinkOptions = {}): SseSink {
  const ended = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, ended.signal]) : ended.signal;
  let texts = 0;
  let open: string | undefined;
  const closeText = () => {
    if (open) writer.write({ type: 'text-end', id: open });
    open = undefined;
  };
  return {
    send<E extends ChatEventName>(event: E, data: ChatEventMap[E]) {
      if (signal.aborted) return;
      if (event === 'message_delta') {
        if (!open) writer.write({ type: 'text-start', id: (open = `ask-user-text-${++texts}`) });
        writer.write({ type: 'text-delta', id: open, delta: (data as ChatEventMap['message_delta']).text });
        return;
      }
      closeText();
      // The question's id keys its part, so a card redrawn from the same part is the same card.
      const id = event === 'user_input_required' ? (data as ChatEventMap['user_input_required']).id : undefined;
      writer.write({ type: `data-${event}`, ...(id ? { id } : {}), data });
      if (event === 'error') writer.write({ type: 'error', errorText: (data as ChatEventMap['error']).message });
    },
    // The UI message stream keeps its own connection alive.
    comment() {},
    signal,
    get closed() {
      return signal.aborted;
    },
    end() {
      closeText();
      ended.abort();
    },
  };
}
