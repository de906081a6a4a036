/** Options of `readChatEvents`, in a leaf module that the reader and its lazily loaded pipeline share. */
import type { ChatEvent } from './chat-events.js';

export interface ReadChatEventsOptions {
  /** Aborting stops reading and cancels the body; iteration then ends quietly (no error, no rejection). */
  signal?: AbortSignal;
  /** Called for every accepted event, just before the iterator yields it. */
  onEvent?: (event: ChatEvent) => void;
  /**
   * Most characters the parser holds while an event is incomplete (an unfinished line, or data lines awaiting
   * their blank line). A stream sending more without an event boundary is broken or hostile; reading stops
   * with `event_too_large`.
   * @default 1048576
   */
  maxEventSize?: number;
  /** Called with the stream's `retry:` value (milliseconds), the wait the server asks for before a reconnect. */
  onRetry?: (ms: number) => void;
  /**
   * Keep reading after a `done` until the body ends. A stream picked up after a cut (docs/protocol.md §11) may
   * hold a paused run's `done` followed by the frames of its continuation, answered elsewhere.
   * @default false
   */
  readPastDone?: boolean;
}
