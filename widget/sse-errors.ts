/**
 * Why a chat stream could not be read. A leaf module, as eventsource-parser keeps its errors.ts: the reader
 * (sse-reader.ts) and its lazily loaded pipeline (sse-stream.ts) both throw it, and neither imports the other
 * back for it, so the lazy chunk never forms an import cycle.
 */

export type ChatStreamErrorCode = 'http_status' | 'not_event_stream' | 'no_body' | 'event_too_large' | 'stream_failed';

/** Why a Response could not be read as a chat stream. `status` is the HTTP status (0 when not HTTP-related). */
export class ChatStreamError extends Error {
  override readonly name = 'ChatStreamError';
  readonly code: ChatStreamErrorCode;
  readonly status: number;

  constructor(code: ChatStreamErrorCode, message: string, status = 0, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = status;
  }
}
