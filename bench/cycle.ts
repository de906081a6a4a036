/**
 * Benchmark "cycle" — what one question costs the demo server, end to end over HTTP (not a test): POST
 * /api/chat until `user_input_required` and `done`, then POST /api/chat/continue until `done`, against an
 * instant model on 127.0.0.1, on the memory, SQLite and Redis stores. Every figure sits beside a baseline
 * measured in the same run. Parts: cost (round trips, fsyncs, CPU, questions/s vs a bare server), scale
 * (many open questions, startup), streams (memory per open chat stream, idle writes), instances (two
 * servers on one Redis).
 * Run: `node bench/results/build/bench/cycle.js [--only cost,scale,streams,instances]`; BENCH_OPEN sets the
 * open questions for scale (default 50,000), BENCH_SEED_SECONDS the time allowed to make them (default 150),
 * BENCH_CYCLE_SECONDS the load per slice (default 4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInstantModel } from './lib/instant-model.js';
import { redisAvailable, startRedis } from './lib/redis-server.js';
import { writePart } from './lib/results.js';
import type { CycleContext, CycleFindings } from './lib/cycle-context.js';
import { measureCost } from './cycle-cost.js';
import { measureScale } from './cycle-scale.js';
import { measureStreams } from './cycle-streams.js';
import { measureInstances } from './cycle-instances.js';

const PARTS: Record<string, (ctx: CycleContext) => Promise<CycleFindings>> = {
  cost: measureCost,
  scale: measureScale,
  streams: measureStreams,
  instances: measureInstances,
};
const onlyAt = process.argv.indexOf('--only');
const wanted = onlyAt > 0 ? process.argv[onlyAt + 1]!.split(',') : Object.keys(PARTS);
const positive = (raw: string | undefined, fallback: number) => (raw && Number(raw) > 0 ? Number(raw) : fallback);

const started = performance.now();
const tmp = mkdtempSync(join(tmpdir(), 'bench-cycle-'));
const model = await startInstantModel();
const redis = redisAvailable() ? await startRedis() : undefined;
const ctx: CycleContext = {
  model,
  redis,
  tmp,
  seconds: positive(process.env.BENCH_CYCLE_SECONDS, 4),
  open: Math.floor(positive(process.env.BENCH_OPEN, 50_000)),
};
const rows: CycleFindings['rows'] = [];
const notes: string[] = [];
const tables: string[] = [];
const detail: Record<string, unknown> = { open: ctx.open, seconds: ctx.seconds };
if (!redis) notes.push('Redis skipped: redis-server is not installed (Debian: apt-get install -y redis-server).');
try {
  for (const name of wanted) {
    const part = PARTS[name];
    if (!part) throw new Error(`unknown part ${name}; use ${Object.keys(PARTS).join(',')}`);
    const t0 = performance.now();
    console.log(`== cycle: ${name}`);
    const found = await part(ctx);
    rows.push(...found.rows);
    notes.push(...found.notes);
    tables.push(...found.tables);
    detail[name] = { ...found.detail, seconds: (performance.now() - t0) / 1000 };
  }
} finally {
  await model.close();
  await redis?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
writePart({ name: 'cycle', seconds: (performance.now() - started) / 1000, rows, notes, tables, detail });
for (const r of rows)
  console.log(`${r.metric}: ${r.value}${r.baseline ? ` vs ${r.baseline}` : ''}${r.ratio ? ` = ${r.ratio}` : ''} (target ${r.target})`);
for (const line of tables) console.log(line);
for (const note of notes) console.log(`note: ${note}`);
// Sockets kept alive by the load generator's agent must not hold the process open.
process.exit(0);
