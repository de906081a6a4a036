/**
 * Benchmark "follow" — what contract §11 (runs outlive the connection) costs: every frame of a run goes to
 * the session's event log before its client, and `GET /api/chat/stream` follows it from any instance.
 * Parts: cost (log appends per question and questions/s beside a no-op log, memory/SQLite/Redis), delay
 * (append on one instance → frame on a follower of another, Redis), idle (memory per idle follower beside
 * an idle chat stream, store calls of 1,000 idle followers).
 * Run: `node bench/results/build/bench/follow.js [--quick] [--only cost,delay,idle]`; BENCH_CYCLE_SECONDS sets
 * the load per slice (default 4). `--quick` follows 50 runs instead of 150 and watches the idle followers
 * 16 s instead of 31 (either way longer than a follower's 15 s liveness check).
 */
import { runParts } from './lib/run-parts.js';
import { measureLogCost } from './follow-cost.js';
import { measureDelay, measureIdle, SLOW } from './follow-live.js';

const quick = process.argv.includes('--quick');
const size = quick ? { runs: 50, idleSeconds: 16 } : { runs: 150, idleSeconds: 31 };

await runParts(
  'follow',
  { cost: measureLogCost, delay: (ctx) => measureDelay(ctx, size.runs), idle: (ctx) => measureIdle(ctx, size.idleSeconds) },
  { slow: SLOW },
);
