/**
 * The event log of contract §11: every frame of a session's chat and continue streams, kept for a replay
 * window so a client that lost its connection (or reloaded) picks the stream up where it left it, on any
 * instance sharing the store.
 *
 * A backend brings `LogBackend` (memory, SQLite, Redis each have one; tests/plugin/store/log-contract.ts
 * runs the same suite on each). The store wraps it as an `EventLog` with the contract's bounds.
 *
 * Frames are kept per run, runs in the order they started, oldest frames dropped first. A frame is stored
 * exactly as sent (event name and the JSON text of its data), never merged or split.
 */
import type { FramePosition } from '../contract/frame-id.js';

export { frameId, parseFrameId } from '../contract/frame-id.js';

/** One frame as sent: `id: <runId>.<seq>`, `event:`, `data:` (JSON text, one line). */
export interface LogFrame {
  runId: string;
  seq: number;
  event: string;
  data: string;
}

/** How much a log keeps (§11): per run, and how long after a session's last frame. */
export interface LogLimits {
  /** The session's frames stay this long after its last frame. @default 600000 (10 minutes) */
  windowMs: number;
  /** Frames kept per run, oldest dropped first. @default 10000 */
  maxFrames: number;
  /** Bytes of `data` + `event` kept per run, oldest frames dropped first. @default 1048576 */
  maxBytes: number;
  /** Runs kept per session, oldest dropped first. @default 32 */
  maxRuns: number;
}

export const DEFAULT_LOG_LIMITS: Readonly<LogLimits> = { windowMs: 600_000, maxFrames: 10_000, maxBytes: 1_048_576, maxRuns: 32 };

/** Where a reader stands: after this frame. */
export type LogPosition = FramePosition;

/** What `read` found after a position. */
export type LogRead =
  /** Every kept frame after the position (or of the whole session, without one), in order. */
  | { kind: 'frames'; frames: LogFrame[] }
  /** The position's run is no longer kept, or frames right after it were dropped (§11: 410 `replay_expired`). */
  | { kind: 'expired' };

/**
 * What a backend implements; the store's `EventLog` adds the limits and names. `key` names one session's
 * log (the store gives `<namespace>:log:<sessionId>`; a backend may use it as a key, a column or a channel
 * name). Errors propagate; the store bounds each call in time.
 */
export interface LogBackend {
  /**
   * Append frames of one run (consecutive seqs, in order) to the session's log in one write, drop what
   * falls outside `limits`, keep the session `limits.windowMs` from now, then wake every watcher of the
   * session in any process sharing the backend (memory: this process).
   */
  append(key: string, frames: readonly LogFrame[], limits: LogLimits): Promise<void>;
  /** The kept frames after `after` (see LogRead), or all kept frames of the session. */
  read(key: string, after?: LogPosition): Promise<LogRead>;
  /** The last kept frame of the session, if any: where a new reader without an id begins, and what a run continues. */
  last(key: string): Promise<LogFrame | undefined>;
  /**
   * Call `listener` after frames under `key` were appended, here or (where the backend reaches) in
   * another process; also for signals sent to the session. Returns the unsubscribe function. A listener may
   * be called more than once per append, never zero times for an append made after `watch` resolved.
   */
  watch(key: string, listener: (signal?: string) => void): Promise<() => void>;
  /** Wake the session's watchers everywhere with `signal` (the stop button's way to reach the running instance). */
  signal(key: string, signal: string): Promise<void>;
  close(): Promise<void>;
}

/** Bytes a frame costs against `maxBytes`. */
export const frameBytes = (frame: LogFrame): number => Buffer.byteLength(frame.data) + Buffer.byteLength(frame.event);

/**
 * The frames of one run trimmed to the limits: oldest first dropped until both bounds hold. Used by the
 * backends that trim in process (memory, SQLite); Redis does the same in its script.
 */
export function keptFrom(frames: readonly LogFrame[], limits: Pick<LogLimits, 'maxFrames' | 'maxBytes'>): number {
  let start = Math.max(0, frames.length - limits.maxFrames);
  let bytes = 0;
  for (let i = frames.length - 1; i >= start; i--) {
    bytes += frameBytes(frames[i]!);
    if (bytes > limits.maxBytes) {
      start = i + 1;
      break;
    }
  }
  return start;
}

/**
 * Frames after `after` in runs kept in order, the rule every backend shares: the position's run must be kept,
 * and its first kept frame must be at most one past the position (nothing between them was dropped).
 */
export function framesAfter(runs: ReadonlyArray<{ runId: string; frames: readonly LogFrame[] }>, after?: LogPosition): LogRead {
  if (!after) return { kind: 'frames', frames: runs.flatMap((run) => run.frames) };
  const at = runs.findIndex((run) => run.runId === after.runId);
  if (at < 0) return { kind: 'expired' };
  const run = runs[at]!;
  const first = run.frames[0];
  if (first && first.seq > after.seq + 1) return { kind: 'expired' };
  const frames = run.frames.filter((frame) => frame.seq > after.seq);
  for (const later of runs.slice(at + 1)) frames.push(...later.frames);
  return { kind: 'frames', frames };
}

/** The event log as the kit uses it: by session, within the store's limits and time budget (keyed-store.ts). */
export interface EventLog {
  readonly limits: Readonly<LogLimits>;
  append(sessionId: string, frames: readonly LogFrame[]): Promise<void>;
  read(sessionId: string, after?: LogPosition): Promise<LogRead>;
  last(sessionId: string): Promise<LogFrame | undefined>;
  watch(sessionId: string, listener: (signal?: string) => void): Promise<() => void>;
  signal(sessionId: string, signal: string): Promise<void>;
}

/** Checks and completes the limits a host gives (`StoreOptions.eventLog`). */
export function resolveLogLimits(given: Partial<LogLimits> = {}): LogLimits {
  const limits = { ...DEFAULT_LOG_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`eventLog.${name} must be a positive integer, got ${value}`);
  }
  return limits;
}

/**
 * The session-level log over a backend: keys in the store's namespace (`key` names a session's log, see
 * physical-keys.ts), every call through `operation` (the store's closed check and time budget).
 */
export function eventLogOver(
  backend: LogBackend,
  key: (sessionId: string) => string,
  limits: LogLimits,
  operation: <T>(name: string, work: () => Promise<T>) => Promise<T>,
): EventLog {
  return {
    limits,
    append: (sessionId, frames) => operation('log append', () => backend.append(key(sessionId), frames, limits)),
    read: (sessionId, after) => operation('log read', () => backend.read(key(sessionId), after)),
    last: (sessionId) => operation('log last', () => backend.last(key(sessionId))),
    watch: (sessionId, listener) => operation('log watch', () => backend.watch(key(sessionId), listener)),
    signal: (sessionId, signal) => operation('log signal', () => backend.signal(key(sessionId), signal)),
  };
}
