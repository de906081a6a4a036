/**
 * Counts what the keyed store asks of its backend, by method name. A Proxy rather than a fixed list of
 * methods, so whatever the store's backend interface grows (a key scan, a batch) is counted as well.
 */
import type { Backend } from '../../plugin/store/index.js';

export type Counts = Record<string, number>;

export function counting(backend: Backend, counts: Counts = {}): { backend: Backend; counts: Counts } {
  // Properties such as `settlesInline` pass through: the wrapped methods still settle the way the backend's do.
  const proxy = new Proxy(backend, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || name === 'close' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        counts[name] = (counts[name] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { backend: proxy, counts };
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
