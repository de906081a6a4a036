/** Percentiles and number formatting shared by the benchmarks. Samples are plain arrays of numbers. */

/** Nearest-rank percentile of `sorted` (ascending); `p` in 0..100. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no samples');
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}

/** Milliseconds as µs below 1 ms, so small latencies keep their digits. */
export function ms(value: number): string {
  if (value < 1) return `${(value * 1000).toFixed(0)} µs`;
  return `${value.toFixed(2)} ms`;
}

export const ratio = (value: number): string => `${value.toFixed(2)}×`;

export function bytes(value: number): string {
  if (Math.abs(value) >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(1)} MiB`;
  if (Math.abs(value) >= 1024) return `${(value / 1024).toFixed(2)} KiB`;
  return `${value.toFixed(0)} B`;
}

export const perSecond = (value: number): string => `${Math.round(value).toLocaleString('en-US')} req/s`;

/**
 * Wall-clock epoch ms with sub-ms digits: comparable across processes on one machine (each process's
 * origin is read from the same system clock), unlike `performance.now()` alone.
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();
