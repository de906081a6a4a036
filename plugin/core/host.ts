/**
 * The seam between the plugin's routes and whatever runs the agent: the plugin's own persisted loop
 * (plugin/loop/) or a host's in-memory loop waiting on a promise (plugin/core/in-process-host.ts).
 */
import type { Answer, ChatEventMap, ChatEventName } from '../contract/schema.js';
import type { InteractionRecord } from '../store/types.js';

/** A chat stream being written (docs/protocol.md §3). Writes after the client left are dropped silently. */
export interface SseSink {
  send<E extends ChatEventName>(event: E, data: ChatEventMap[E]): void;
  /** A comment line (`: text`), e.g. the heartbeat. */
  comment(text: string): void;
  /** Aborted when the client disconnects or the stream is ended. */
  readonly signal: AbortSignal;
  readonly closed: boolean;
  /** Ends the response. Idempotent. */
  end(): void;
  /**
   * A frame with its id (contract §11), data already JSON text: a run's frames come this way when the sink
   * has it, so replayed and live frames are the same bytes. Unlike `send`, a `done` sent this way does not
   * end the stream. Sinks that do not speak SSE leave it out.
   */
  sendFrame?(frame: IdentifiedFrame): void;
}

/** One frame of a run's stream as sent and logged: `id: <runId>.<seq>`, the event, its data as JSON text. */
export interface IdentifiedFrame {
  id: string;
  event: ChatEventName;
  data: string;
}

export interface ResumeContext {
  /** The interaction as claimed: `status` and `resolution` are final. */
  record: InteractionRecord;
  answer: Answer;
  /** Exact ToolResult content for `record.toolCallId` (docs/protocol.md §4). */
  toolResultContent: string;
  /** The continue response's stream. `interaction_resolved` is already written. */
  sse: SseSink;
}

export interface ClosedContext {
  record: InteractionRecord;
  /** The cancel content plus `reason`, to write for `record.toolCallId` before the model is next called. */
  toolResultContent: string;
}

export interface RunHost {
  /** True when this process can continue the run paused on `record` (persisted state or a live wait). */
  isResumable(record: InteractionRecord): Promise<boolean>;
  /**
   * After a successful claim: write the ToolResult into the run (durably, then `store.markToolResultWritten`),
   * send `tool_result`, continue the run on `sse`, and finish with a `done` event. For a cancel: write the
   * cancel ToolResult, send `tool_result`, then `done {reason:"cancelled"}` with no model call.
   */
  resume(ctx: ResumeContext): Promise<void>;
  /** An interaction was closed as `expired` or `superseded`: write its ToolResult and end the paused run. */
  closed(ctx: ClosedContext): Promise<void>;
  /**
   * Where the continue of `record`'s answer goes on in the session's event log (contract §11): the run
   * that asked and its last frame. A host with it gets its continue streams logged, numbered and
   * resumable; one without it streams as contract 1.1 did.
   */
  streamOf?(record: InteractionRecord): Promise<{ runId: string; seq: number } | undefined>;
  /** True while a runner holds the session (a follower then waits for frames). */
  inFlight?(sessionId: string): Promise<boolean>;
  /** The stop button (`POST /api/chat/stop`): stop the run in flight or close the open card as cancelled. */
  stop?(sessionId: string): Promise<{ stopped: boolean }>;
}
