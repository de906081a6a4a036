/**
 * A run's stream (contract §11): the sink a run writes its frames to. Each frame gets the id
 * `<runId>.<seq>`, goes to the session's event log, and then to the client attached, if one still is.
 * The client leaving detaches it and nothing more: the run goes on until it pauses, ends or is stopped
 * (`stop()`), and a client that comes back reads what it missed from the log.
 *
 * Frames are logged before they are sent, so a client never holds an id the log lacks: after a crash a
 * survivor continuing the run numbers on from the log without reusing an id a client saw. Frames of one
 * tick go in one append; frames sent while an append is in flight go in the next one.
 */
import type { ChatEventMap, ChatEventName } from '../contract/schema.js';
import { frameId, type EventLog, type LogFrame, type LogPosition } from '../store/event-log.js';
import type { IdentifiedFrame, SseSink } from './host.js';

/** Why a run's signal aborted: the stop button, not a client that went away. */
export const RUN_STOPPED = new DOMException('the run was stopped', 'AbortError');

export interface RunStreamOptions {
  log: EventLog;
  sessionId: string;
  runId: string;
  /** The last seq the run used before this stream (0 for a new run). */
  seq: number;
  /** The client's stream, when one is attached. */
  client?: SseSink;
  /** A failed append: the frame still goes to the client, but a reconnecting one will not get it. */
  onError(err: unknown): void;
}

export class RunStream implements SseSink {
  readonly sessionId: string;
  readonly runId: string;
  readonly #log: EventLog;
  readonly #onError: (err: unknown) => void;
  readonly #stopper = new AbortController();
  #client: SseSink | undefined;
  #seq: number;
  #batch: Array<{ frame: LogFrame; data: unknown }> = [];
  #scheduled = false;
  /** The append in flight and every flush queued behind it: settles when the log has every frame sent so far. */
  #flushing: Promise<void> = Promise.resolve();
  #ended = false;

  constructor({ log, sessionId, runId, seq, client, onError }: RunStreamOptions) {
    this.#log = log;
    this.sessionId = sessionId;
    this.runId = runId;
    this.#seq = seq;
    this.#client = client;
    this.#onError = onError;
  }

  /** The last frame's position: what the run's state keeps so it numbers on after a pause. */
  get position(): LogPosition {
    return { runId: this.runId, seq: this.#seq };
  }

  /** Aborted by `stop()` only: a client going away does not stop the run. */
  get signal(): AbortSignal {
    return this.#stopper.signal;
  }

  get closed(): boolean {
    return this.#ended || this.#stopper.signal.aborted;
  }

  get stopped(): boolean {
    return this.#stopper.signal.aborted;
  }

  send<E extends ChatEventName>(event: E, data: ChatEventMap[E]): void {
    if (this.#ended) return;
    const frame: LogFrame = { runId: this.runId, seq: ++this.#seq, event, data: JSON.stringify(data) };
    this.#batch.push({ frame, data });
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Frames of one tick (interaction_resolved, tool_result, done…) are one append.
    process.nextTick(() => {
      this.#scheduled = false;
      this.#flushing = this.#flushing.then(() => this.#flush());
    });
  }

  /** Heartbeats and other comments go to the client only: they carry no id and are not logged. */
  comment(text: string): void {
    if (this.#client && !this.#client.closed) this.#client.comment(text);
  }

  /** The stop button: the run's model call aborts, and its turn ends as cancelled (another `reason`: ends without one). */
  stop(reason: unknown = RUN_STOPPED): void {
    this.#stopper.abort(reason);
  }

  /** No more frames; the client's stream ends once the log has the last ones. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    void this.settled().then(() => this.#client?.end());
  }

  /** Settles when every frame sent so far is in the log (or failed to get there) and went to the client. */
  async settled(): Promise<void> {
    while (this.#scheduled || this.#batch.length > 0) {
      await new Promise<void>((resolve) => process.nextTick(resolve));
      await this.#flushing;
    }
    await this.#flushing;
  }

  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length === 0) return;
    try {
      await this.#log.append(
        this.sessionId,
        batch.map((b) => b.frame),
      );
    } catch (err) {
      this.#onError(err);
    }
    const client = this.#client;
    if (!client || client.closed) {
      this.#client = undefined;
      return;
    }
    for (const { frame, data } of batch) {
      if (client.sendFrame) {
        client.sendFrame({ id: frameId(frame), event: frame.event as ChatEventName, data: frame.data } satisfies IdentifiedFrame);
        // `done` is the live stream's last frame (§3).
        if (frame.event === 'done') client.end();
      } else client.send(frame.event as ChatEventName, data as ChatEventMap[ChatEventName]);
    }
  }
}
