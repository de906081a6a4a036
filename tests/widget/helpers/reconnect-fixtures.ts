/**
 * Fixtures for the reconnecting reader (docs/protocol.md §11): a clock whose timers run only when a test says
 * so, a server whose every request waits for the test to answer it, and a response body the test feeds,
 * closes or breaks at will. Nothing here waits on wall-clock time; `until` only turns a hang into a failure.
 */
import type { ReconnectClock } from '../../../widget/client-types.js';
import { until } from './expect.js';
import { frame } from './sse-fixtures.js';

const encoder = new TextEncoder();

/** One frame with its `id:` line, as a 1.2 server writes it. */
export const idFrame = (id: string, event: string, data: unknown): string => `id: ${id}\n${frame(event, data)}`;

/** The line every 1.2 stream starts with. */
export const RETRY = 'retry: 1000\n\n';

interface Timer {
  due: number;
  ms: number;
  callback: () => void;
}

/** Time that moves only when `advance` moves it; `random` gives `randoms` in turn, then 0.5. */
export class FakeClock implements ReconnectClock {
  time = 0;
  randoms: number[] = [];
  /** Every delay asked for, in order, whether it ran or was cleared. */
  readonly scheduled: number[] = [];
  private readonly _timers = new Map<number, Timer>();
  private _next = 1;

  now(): number {
    return this.time;
  }

  random(): number {
    return this.randoms.shift() ?? 0.5;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this._next++;
    this._timers.set(id, { due: this.time + ms, ms, callback });
    this.scheduled.push(ms);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this._timers.delete(handle as number);
  }

  /** Delays of the timers still to run, soonest first. */
  get pending(): number[] {
    return [...this._timers.values()].sort((a, b) => a.due - b.due).map((t) => t.ms);
  }

  /** Waits (in real time, without a bound on speed) until `count` timers have been asked for in all. */
  scheduledCount(count: number): Promise<unknown> {
    return until(() => this.scheduled.length >= count, `${count} timers scheduled (got ${JSON.stringify(this.scheduled)})`);
  }

  /** Moves time forward by `ms`, running each timer that falls due on the way, in order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const [id, timer] = [...this._timers.entries()].filter(([, t]) => t.due <= target).sort((a, b) => a[1].due - b[1].due)[0] ?? [];
      if (id === undefined || !timer) break;
      this._timers.delete(id);
      this.time = timer.due;
      timer.callback();
    }
    this.time = target;
  }

  /** Runs the timer due next, whatever its delay, and says what the delay was. */
  runNext(): number {
    const soonest = [...this._timers.values()].sort((a, b) => a.due - b.due)[0];
    if (!soonest) throw new Error('no timer to run');
    this.advance(soonest.due - this.time);
    return soonest.ms;
  }
}

/** One request the fake server received; the test answers it (or fails it, as a dropped network does). */
export interface Request {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
  respond(response: Response): void;
  fail(reason?: unknown): void;
}

/** A `fetch` whose requests wait for the test. An aborted signal rejects its request, as the page's fetch does. */
export class FakeServer {
  readonly requests: Request[] = [];

  readonly fetch = ((input: RequestInfo | URL, init: RequestInit = {}) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal;
      if (signal?.aborted) return reject(new DOMException('aborted', 'AbortError'));
      signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
      this.requests.push({
        url: String(input),
        method: init.method ?? 'GET',
        headers: new Headers(init.headers),
        body: typeof init.body === 'string' ? init.body : undefined,
        respond: resolve,
        fail: (reason = new TypeError('Failed to fetch')) => reject(reason),
      });
    })) as typeof fetch;

  /** Request number `n` (from 0), once it has come. */
  request(n: number): Promise<Request> {
    return until(() => this.requests[n], `request #${n} (got ${this.requests.length})`);
  }
}

type Step = Uint8Array | { end: 'close' } | { end: 'error'; reason: unknown };

/**
 * A `text/event-stream` response the test writes to. Each step goes out on the reader's pull, so a break
 * (`fail`) comes only after everything sent before it was read, as on a real connection.
 */
export class LiveStream {
  readonly response: Response;
  /** Resolves once the reader cancelled the body. */
  readonly cancelled: Promise<unknown>;
  private readonly _steps: Step[] = [];
  private _wake: (() => void) | undefined;

  constructor(contentType = 'text/event-stream; charset=utf-8') {
    let cancelled!: (reason: unknown) => void;
    this.cancelled = new Promise((resolve) => (cancelled = resolve));
    const body = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          while (this._steps.length === 0) await new Promise<void>((resolve) => (this._wake = resolve));
          const step = this._steps.shift()!;
          if (step instanceof Uint8Array) controller.enqueue(step);
          else if (step.end === 'close') controller.close();
          else controller.error(step.reason);
        },
        cancel: (reason) => cancelled(reason ?? 'cancelled'),
      },
      { highWaterMark: 0 },
    );
    this.response = new Response(body, { status: 200, headers: { 'content-type': contentType } });
  }

  send(text: string): this {
    return this._push(encoder.encode(text));
  }

  /** The server ends the body (without `done`, unless it sent one). */
  close(): this {
    return this._push({ end: 'close' });
  }

  /** The connection breaks. */
  fail(reason: unknown = new TypeError('network changed')): this {
    return this._push({ end: 'error', reason });
  }

  private _push(step: Step): this {
    this._steps.push(step);
    this._wake?.();
    this._wake = undefined;
    return this;
  }
}

/** A Storage of the page's shape, in memory: each test its own. */
export class MemoryStorage implements Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

/** A response with no body, as 204 is. */
export const noContent = (): Response => new Response(null, { status: 204 });
