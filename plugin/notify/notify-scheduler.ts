/**
 * When notifiers run (contract §13): once per card, `afterMs` after it was asked, if it still waits. The
 * process that asked keeps one timer per open card and nothing else: a card answered in time costs no
 * store call at all, and one answered elsewhere one read when its timer fires. Another instance finds a
 * card whose process died through the sweep of paused runs (`due`), within one sweep period. Exactly one
 * caller across instances sends: the marker `notified:<sessionId>:<requestId>` is claimed (written only if
 * absent) before anything is sent.
 */
import { isPastExpiry, type InteractionRecord, type PendingStore } from '../store/types.js';
import { notificationOf, type Notifier } from './notifier.js';

export interface NotifySchedulerOptions {
  store: PendingStore;
  notifiers: readonly Notifier[];
  /** Wait after a card was asked before its notifiers run; 0 = at once. */
  afterMs: number;
  now: () => number;
  onError: (err: unknown) => void;
  /** The card's answer link, made by the instance that won the marker (answer links on), else undefined. */
  answerUrl?: (record: InteractionRecord) => Promise<string | undefined>;
  /** Deliveries in flight at once in this process. @default 64 */
  concurrency?: number;
}

/** How long a card's marker outlives the card: late sweeps still find it. */
const MARKER_GRACE_MS = 60 * 60 * 1000;

export const notifiedKey = (record: Pick<InteractionRecord, 'sessionId' | 'requestId'>) =>
  `notified:${record.sessionId}:${record.requestId}`;

export class NotifyScheduler {
  readonly #store: PendingStore;
  readonly #notifiers: readonly Notifier[];
  readonly #afterMs: number;
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  readonly #answerUrl: NotifySchedulerOptions['answerUrl'];
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #closing = new AbortController();
  readonly #limit: Limit;
  /** Deliveries under way, so `close` can wait for them. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: NotifySchedulerOptions) {
    if (!(Number.isFinite(options.afterMs) && options.afterMs >= 0))
      throw new TypeError(`notifyAfterMs must be 0 or more, got ${options.afterMs}`);
    const names = options.notifiers.map((n) => n.name);
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice !== undefined) throw new TypeError(`two notifiers are named ${JSON.stringify(twice)}`);
    this.#store = options.store;
    this.#notifiers = options.notifiers;
    this.#afterMs = options.afterMs;
    this.#now = options.now;
    this.#onError = options.onError;
    this.#answerUrl = options.answerUrl;
    this.#limit = new Limit(options.concurrency ?? 64);
  }

  /** True when there is anything to notify with. */
  get active(): boolean {
    return this.#notifiers.length > 0;
  }

  /** A card was asked in this process: its notifiers run `afterMs` from its creation, if it still waits then. */
  schedule(record: InteractionRecord): void {
    if (!this.active || this.#closing.signal.aborted) return;
    const due = record.createdAt + this.#afterMs;
    // Due only after it expired: it never is.
    if (due >= record.expiresAt) return;
    const delay = Math.max(0, due - this.#now());
    // setTimeout caps at 2^31-1 ms; a later due time is left to the sweeps.
    if (delay > 2 ** 31 - 1) return;
    const timer = setTimeout(() => {
      this.#timers.delete(record.requestId);
      this.#track(this.#fire(record.requestId));
    }, delay);
    timer.unref();
    this.#timers.set(record.requestId, timer);
  }

  /** The card closed in this process: its timer goes, and nothing is read or sent for it. */
  cancel(requestId: string): void {
    const timer = this.#timers.get(requestId);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(requestId);
  }

  /**
   * A sweep found this pending card (asked by any instance): notify it if it is due and nobody did. The
   * delivery goes on in the background (a webhook's retries take minutes); `close` waits for it.
   */
  due(record: InteractionRecord): void {
    if (!this.active || this.#timers.has(record.requestId)) return; // its own timer is on it
    if (record.status !== 'pending' || isPastExpiry(record, this.#now()) || this.#now() < record.createdAt + this.#afterMs) return;
    this.#track(this.#deliver(record));
  }

  /** Stop the timers; deliveries under way end (their retries stop) and are waited for. */
  async close(): Promise<void> {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#closing.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  async #fire(requestId: string): Promise<void> {
    const record = await this.#store.get(requestId);
    if (!record || record.status !== 'pending' || isPastExpiry(record, this.#now())) return;
    await this.#deliver(record);
  }

  async #deliver(record: InteractionRecord): Promise<void> {
    await this.#limit.run(async () => {
      if (this.#closing.signal.aborted) return;
      const claimed = await this.#store.putState(
        notifiedKey(record),
        { at: this.#now() },
        { ifVersion: null, ttlMs: Math.max(0, record.expiresAt - this.#now()) + MARKER_GRACE_MS, sessionId: record.sessionId },
      );
      if (!claimed) return;
      const answerUrl = await this.#answerUrl?.(record);
      const notification = notificationOf(record, answerUrl);
      const ctx = { signal: this.#closing.signal, isOpen: () => this.#isOpen(record.requestId), store: this.#store };
      await Promise.all(
        this.#notifiers.map((notifier) =>
          notifier.notify(notification, ctx).catch((err: unknown) => this.#onError(new NotifyError(notifier.name, err))),
        ),
      );
    });
  }

  async #isOpen(requestId: string): Promise<boolean> {
    const record = await this.#store.get(requestId);
    return record?.status === 'pending' && !isPastExpiry(record, this.#now());
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch(this.#onError).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }
}

/** A notifier's failure as logged: its name, and the cause's message only (never a payload). */
export class NotifyError extends Error {
  constructor(notifier: string, cause: unknown) {
    super(`notifier ${notifier} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'NotifyError';
  }
}

/** At most `max` tasks at once; the rest wait in order. */
class Limit {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active++;
    try {
      return await task();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}
