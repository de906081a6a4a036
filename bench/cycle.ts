/**
 * Benchmark "cycle" — what one question costs the demo server, end to end over HTTP (not a test): POST
 * /api/chat until `user_input_required` and `done`, then POST /api/chat/continue until `done`, against an
 * instant model on 127.0.0.1, on the memory, SQLite, Redis, PostgreSQL and Redis Cluster stores. Every figure
 * sits beside a baseline measured in the same run. Parts: cost (round trips, fsyncs, CPU, questions/s vs a
 * bare server; PostgreSQL vs Redis in alternated slices), scale (many open questions, startup; SQLite,
 * Redis, PostgreSQL and Redis Cluster), streams (memory per open chat stream, idle writes), instances (two servers on one Redis).
 * Run: `node bench/results/build/bench/cycle.js [--only cost,scale,streams,instances]`; BENCH_OPEN sets the
 * open questions for scale (default 50,000), BENCH_SEED_SECONDS the time allowed to make them (default 420),
 * BENCH_CYCLE_SECONDS the load per slice (default 4).
 */
import { runParts } from './lib/run-parts.js';
import { measureCost } from './cycle-cost.js';
import { measureScale } from './cycle-scale.js';
import { measureStreams } from './cycle-streams.js';
import { measureInstances } from './cycle-instances.js';

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? (process.argv[onlyAt + 1] ?? '').split(',') : undefined;

// The cost and scale parts measure PostgreSQL and Redis Cluster too; streams and instances never touch them.
const storesToo = !only || only.includes('cost') || only.includes('scale');

await runParts(
  'cycle',
  { cost: measureCost, scale: measureScale, streams: measureStreams, instances: measureInstances },
  {},
  { postgres: storesToo, redisCluster: storesToo },
);
