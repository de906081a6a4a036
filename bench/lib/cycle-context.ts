/** What every part of the cycle benchmark shares: the model, the Redis (when there is one), the knobs. */
import type { ResultRow } from './results.js';
import type { InstantModel } from './instant-model.js';
import type { BenchRedis } from './redis-server.js';
import type { BenchPostgres } from './postgres-server.js';
import type { BenchRedisCluster } from './redis-cluster.js';

export interface CycleContext {
  model: InstantModel;
  /** Undefined when redis-server is not installed. */
  redis: BenchRedis | undefined;
  /** A PostgreSQL of the benchmark's own, for the benchmarks that ask for one (cycle.ts); else undefined. */
  postgres: BenchPostgres | undefined;
  /** A Redis Cluster of the benchmark's own (3 masters, 3 replicas), for those that ask for one (cycle.ts); else undefined. */
  redisCluster: BenchRedisCluster | undefined;
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
export function storeSpec(ctx: CycleContext, backend: 'memory' | 'sqlite' | 'redis' | 'redis-cluster', name: string): string {
  if (backend === 'memory') return 'memory';
  if (backend === 'sqlite') return `sqlite:${ctx.tmp}/${name}.db`;
  if (backend === 'redis-cluster') return `redis-cluster:${ctx.redisCluster!.url}`;
  return `redis:${ctx.redis!.url}`;
}

/** The same for PostgreSQL: a fresh database named `name` on the benchmark's own server. */
export async function postgresSpec(ctx: CycleContext, name: string): Promise<string> {
  return `postgres:${await ctx.postgres!.freshDatabase(name)}`;
}

export const one = (port: number) => () => ({ chat: port, continue: port });

export const fixed = (value: number, digits = 2) => value.toFixed(digits);
export const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')} cycles/s`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
