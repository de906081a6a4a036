/** What every part of the cycle benchmark shares: the model, the Redis (when there is one), the knobs. */
import type { ResultRow } from './results.js';
import type { InstantModel } from './instant-model.js';
import type { BenchRedis } from './redis-server.js';

export interface CycleContext {
  model: InstantModel;
  /** Undefined when redis-server is not installed. */
  redis: BenchRedis | undefined;
  /** A fresh temp dir for SQLite files. */
  tmp: string;
  /** Seconds of load per measured slice. */
  seconds: number;
  /** Paused sessions for the scale and startup figures (BENCH_OPEN). */
  open: number;
}

export interface CycleFindings {
  rows: ResultRow[];
  notes: string[];
  /** Markdown lines printed under the summary table. */
  tables: string[];
  detail: Record<string, unknown>;
}

export const emptyFindings = (): CycleFindings => ({ rows: [], notes: [], tables: [], detail: {} });

/** The store argument of bench/cycle-server.ts for a backend. */
export function storeSpec(ctx: CycleContext, backend: 'memory' | 'sqlite' | 'redis', name: string): string {
  if (backend === 'memory') return 'memory';
  if (backend === 'sqlite') return `sqlite:${ctx.tmp}/${name}.db`;
  return `redis:${ctx.redis!.url}`;
}

export const one = (port: number) => () => ({ chat: port, continue: port });

export const fixed = (value: number, digits = 2) => value.toFixed(digits);
export const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')} cycles/s`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
