/**
 * A run's stream that outlives the page while an MCP elicitation card is open. The MCP request waits
 * inside a tool call of the run, so the run must not stop when the page reloads: while a card holds it,
 * the page leaving does not abort the run, and once the card is answered from the new page, what the run
 * says next goes to that answer's stream, as a resumed `ask_user` run's does.
 */
import type { ChatEventMap, ChatEventName } from '../contract/schema.js';
import type { IdentifiedFrame, SseSink } from '../core/host.js';
import type { ChatInput } from '../core/runtime.js';

export class RelaySink implements SseSink {
  private target: SseSink;
  private holds = 0;
  private readonly stop = new AbortController();
  private readonly ended: Promise<void>;
  private finish!: () => void;

  constructor(target: SseSink) {
    this.target = target;
    this.ended = new Promise<void>((resolve) => (this.finish = resolve));
    this.watch(target);
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  get closed(): boolean {
    return this.stop.signal.aborted;
  }

  /** True when nobody reads what the run says: the page left. */
  get orphaned(): boolean {
    return this.target.closed;
  }

  send<E extends ChatEventName>(event: E, data: ChatEventMap[E]): void {
    if (!this.target.closed) this.target.send(event, data);
  }

  comment(text: string): void {
    if (!this.target.closed) this.target.comment(text);
  }

  /** A logged frame keeps its id on whichever stream it is relayed to (contract §11). */
  sendFrame(frame: IdentifiedFrame): void {
    if (this.target.closed) return;
    if (this.target.sendFrame) this.target.sendFrame(frame);
    else this.target.send(frame.event, JSON.parse(frame.data) as never);
  }

  end(): void {
    this.target.end();
    this.stop.abort();
  }

  /** Keeps the run going while the page is away; call the result to let go. */
  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds--;
      this.check();
    };
  }

  /** What the run says from now on goes to `next`; resolves when the run is over or `next` closes. */
  handOver(next: SseSink): Promise<void> {
    this.target = next;
    this.watch(next);
    const gone = new Promise<void>((resolve) =>
      next.signal.aborted ? resolve() : next.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    return Promise.race([this.ended, gone]);
  }

  /** Resolves once the run is over (its runtime returned). */
  get over(): Promise<void> {
    return this.ended;
  }

  /** The run is over (its runtime returned). */
  done(): void {
    this.finish();
  }

  private watch(sink: SseSink): void {
    if (sink.signal.aborted) this.check();
    else sink.signal.addEventListener('abort', () => this.check(), { once: true });
  }

  private check(): void {
    if (this.holds === 0 && this.target.closed && !this.stop.signal.aborted) this.stop.abort();
  }
}

/** Runs `run` on a relay over `sse`, marking the relay done when it returns. */
export async function relayed<T>(sse: SseSink, run: (relay: RelaySink) => Promise<T>): Promise<T> {
  const relay = new RelaySink(sse);
  try {
    return await run(relay);
  } finally {
    relay.done();
  }
}

/**
 * A runtime's `chat` on a relay. A stream given as a function stays one, so the chat's door can still
 * refuse before anything opens; the relay is made when the chat opens it.
 */
export async function relayedChat<T>(input: ChatInput, chat: (input: ChatInput) => Promise<T>): Promise<T> {
  const given = input.sse;
  if (typeof given !== 'function') return relayed(given, (sse) => chat({ ...input, sse }));
  let relay: RelaySink | undefined;
  try {
    return await chat({ ...input, sse: () => (relay ??= new RelaySink(given())) });
  } finally {
    relay?.done();
  }
}
