/**
 * The memory backend's event log (event-log.ts): runs and frames in this process, watchers woken in it.
 * Two memory stores built on one Map share one log, as they share their rows.
 */
import {
  DEFAULT_LOG_LIMITS,
  eventLogOver,
  framesAfter,
  keptFrom,
  type EventLog,
  type LogBackend,
  type LogFrame,
  type LogLimits,
  type LogPosition,
  type LogRead,
} from './event-log.js';

/** The log a store without one gets (a store of a host's own): in this process, with the default limits. */
export function inProcessLog(owner: object): EventLog {
  return eventLogOver(
    MemoryLog.of(owner),
    (sessionId) => `ask_user:log:${sessionId}`,
    DEFAULT_LOG_LIMITS,
    (_name, work) => work(),
  );
}

interface SessionLog {
  runs: Array<{ runId: string; frames: LogFrame[] }>;
  /** Real clock: the log is kept this long after its last frame. */
  expiresAt: number;
}

type Listener = (signal?: string) => void;

export class MemoryLog implements LogBackend {
  static readonly #byRows = new WeakMap<object, MemoryLog>();

  /** The log that goes with a memory backend's rows. */
  static of(rows: object): MemoryLog {
    let log = MemoryLog.#byRows.get(rows);
    if (!log) MemoryLog.#byRows.set(rows, (log = new MemoryLog()));
    return log;
  }

  readonly #sessions = new Map<string, SessionLog>();
  readonly #watchers = new Map<string, Set<Listener>>();

  async append(key: string, frames: readonly LogFrame[], limits: LogLimits): Promise<void> {
    if (frames.length === 0) return;
    const log = this.#live(key) ?? { runs: [], expiresAt: 0 };
    const runId = frames[0]!.runId;
    let run = log.runs.find((r) => r.runId === runId);
    if (!run) {
      log.runs.push((run = { runId, frames: [] }));
      if (log.runs.length > limits.maxRuns) log.runs.splice(0, log.runs.length - limits.maxRuns);
    }
    // A retried append adds nothing twice, as on the other backends.
    const last = run.frames.at(-1)?.seq ?? 0;
    run.frames.push(...frames.filter((frame) => frame.seq > last));
    const start = keptFrom(run.frames, limits);
    if (start > 0) run.frames.splice(0, start);
    log.expiresAt = Date.now() + limits.windowMs;
    this.#sessions.set(key, log);
    this.#wake(key);
  }

  async read(key: string, after?: LogPosition): Promise<LogRead> {
    return framesAfter(this.#live(key)?.runs ?? [], after);
  }

  async last(key: string): Promise<LogFrame | undefined> {
    return this.#live(key)?.runs.at(-1)?.frames.at(-1);
  }

  async watch(key: string, listener: Listener): Promise<() => void> {
    let set = this.#watchers.get(key);
    if (!set) this.#watchers.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#watchers.get(key) === set) this.#watchers.delete(key);
    };
  }

  async signal(key: string, signal: string): Promise<void> {
    this.#wake(key, signal);
  }

  async close(): Promise<void> {}

  /** Drop the logs past their window nobody read since: a session that never comes back must not stay. */
  collect(): void {
    const now = Date.now();
    for (const [key, log] of this.#sessions) if (now > log.expiresAt) this.#sessions.delete(key);
  }

  #live(key: string): SessionLog | undefined {
    const log = this.#sessions.get(key);
    if (log && Date.now() > log.expiresAt) {
      this.#sessions.delete(key);
      return undefined;
    }
    return log;
  }

  #wake(key: string, signal?: string): void {
    for (const listener of [...(this.#watchers.get(key) ?? [])]) listener(signal);
  }
}
