/**
 * Counts what the keyed store asks of its backend, by method name. A Proxy rather than a fixed list of
 * methods, so whatever the store's backend interface grows (a key scan, a batch) is counted as well.
 * The backend's event log (contract §11) is counted apart, in the counts `log` names, so the store's
 * round trips stay one figure and the log's another.
 */
import type { Backend } from '../../plugin/store/index.js';
import type { LogBackend, LogFrame } from '../../plugin/store/event-log.js';

export type Counts = Record<string, number>;

export interface LogCounting {
  /** Calls of the log's methods, by name. */
  counts: Counts;
  /** Called as an append starts, with its frames: when the running instance writes them. */
  onAppend?: (frames: readonly LogFrame[]) => void;
}

/**
 * Every method call of `target` counted under its name in `counts`, `before` run first; `close` is not
 * counted. Properties are read from, and methods called on, the target itself, never the Proxy: a backend
 * with private fields (`#…`, the PostgreSQL one) refuses a Proxy as `this`.
 */
function countCalls<T extends object>(target: T, counts: Counts, before?: (name: string, args: unknown[]) => void): T {
  return new Proxy(target, {
    get(object, name) {
      const value: unknown = Reflect.get(object, name);
      if (typeof value !== 'function') return value;
      if (name === 'close' || typeof name !== 'string') return (value as (...a: unknown[]) => unknown).bind(object);
      return (...args: unknown[]) => {
        counts[name] = (counts[name] ?? 0) + 1;
        before?.(name, args);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/**
 * What a store call touched, by the kind of its key: `swap state:run`, `read interaction`, … (the keyed
 * store's `<namespace>:<kind>:<id>` and `<namespace>:state:<kind>:<id>`). A `readMany` counts once per call,
 * under the kinds of its keys.
 */
export function keyKindsOf(name: string, args: unknown[]): string {
  const first = args[0];
  const keys =
    name === 'swap'
      ? [(first as { key: string }).key]
      : Array.isArray(first)
        ? (first as string[])
        : typeof first === 'string'
          ? [first]
          : [];
  const kinds = new Set(
    keys.map((key) => {
      const [, kind = '?', sub] = key.split(':');
      return kind === 'state' && sub ? `state:${sub}` : kind;
    }),
  );
  return `${name} ${[...kinds].join('+') || '?'}`;
}

export function counting(
  backend: Backend,
  counts: Counts = {},
  log?: LogCounting,
  /** Store calls again, by the kind of key each touched (`keyKindsOf`). */
  byKey?: Counts,
): { backend: Backend; counts: Counts } {
  // Properties such as `settlesInline` pass through: the wrapped methods still settle the way the backend's do.
  const counted = countCalls(
    backend,
    counts,
    byKey &&
      ((name, args) => {
        const kind = keyKindsOf(name, args);
        byKey[kind] = (byKey[kind] ?? 0) + 1;
      }),
  );
  if (!log || !backend.log) return { backend: counted, counts };
  const onAppend = log.onAppend;
  const countedLog: LogBackend = countCalls(
    backend.log,
    log.counts,
    onAppend && ((name, args) => name === 'append' && onAppend(args[1] as readonly LogFrame[])),
  );
  // The store reads `log` once when it is built; every other property still comes from the counted backend.
  return {
    backend: new Proxy(counted, { get: (object, name, receiver) => (name === 'log' ? countedLog : Reflect.get(object, name, receiver)) }),
    counts,
  };
}

/** `after - before`, per name, dropping names that did not move. */
export function countsDelta(after: Counts, before: Counts): Counts {
  const out: Counts = {};
  for (const [name, n] of Object.entries(after)) if (n - (before[name] ?? 0) !== 0) out[name] = n - (before[name] ?? 0);
  return out;
}

export const totalOf = (counts: Counts): number => Object.values(counts).reduce((t, n) => t + n, 0);

/** `read 6, swap 5` per cycle, largest first. */
export const perCycleText = (counts: Counts, cycles: number): string =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${+(n / cycles).toFixed(2)}`)
    .join(', ') || 'none';
