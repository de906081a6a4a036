/**
 * What the scripted model is told to answer (a turn) and what it reads of a request, in a module of their
 * own: the server and the Responses wire format both use them, and neither imports the other for them.
 */
export interface ScriptedToolCall {
  /** Tool call id; generated (`call_<n>`) when omitted. */
  id?: string;
  name: string;
  /** Raw JSON text as the model would stream it; an object is serialized. A string may be invalid JSON on purpose. */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Size of each streamed text / argument piece, to split at awkward places. @default 7 */
  chunkSize?: number;
  /** Interleave the argument pieces of parallel tool calls, as some providers do. @default false */
  interleave?: boolean;
  /** Answer with this HTTP status and an OpenAI-style error body instead of a completion. */
  failStatus?: number;
  /** The error body's message with `failStatus` (some endpoints echo the refused key in it). */
  failMessage?: string;
  /** The error body's `param` with `failStatus` (the request field it refused, as OpenAI names it). */
  failParam?: string;
  /** Streamed only after this settles, so a test can hold a run mid-flight. */
  hold?: Promise<unknown>;
  /** Pause after each streamed text piece, so a person watching sees text arrive. @default 0 */
  pieceDelayMs?: number;
  /**
   * Stream exactly these `data:` payloads instead (an object is JSON-encoded, a string sent as it is), to
   * reproduce an endpoint's wire quirks; `[DONE]` follows unless `noDone`.
   */
  raw?: Array<Record<string, unknown> | string>;
  /** With `raw`: end the stream without `data: [DONE]`. On the Responses API: end it without `response.completed`. */
  noDone?: boolean;
  /**
   * Responses API: a reasoning model's reasoning before the reply, as a reasoning item with this summary
   * text (empty: no summary); its encrypted content comes only when the request asks for it (`include`).
   */
  reasoning?: string;
  /** Responses API: end the stream cleanly after this many events (no `response.completed` unless it fits). */
  cutAt?: number;
  /** Answer a streaming request with this plain JSON body, as some proxies do. */
  json?: Record<string, unknown>;
  /** Send the headers, then nothing more until the client goes away (a silent upstream). */
  silent?: boolean;
}

/** What a request body looks like to the scripted model (the fields it reads). */
export interface ChatRequestBody {
  model: string;
  /** Loosely typed on purpose: tests read whatever fields a message has (`tool_calls`, `tool_call_id`, …). */
  messages: Array<{ role: string; [field: string]: any }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  /** `responses` when the request came to the Responses API (its body is read back as this chat body). */
  api?: 'chat' | 'responses';
  [key: string]: unknown;
}

export type Respond = (body: ChatRequestBody) => ScriptedTurn | Promise<ScriptedTurn>;
