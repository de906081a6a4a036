/**
 * What one question costs on each backend: store round trips (counted at the backend, and on Redis by its
 * own command counters), SQLite fsyncs (strace), server CPU and cycles/s at 10 concurrent browsers beside
 * a bare node:http server doing the same two exchanges with the same `openai` client, and the client's
 * share of the server's CPU from a V8 profile.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { CycleProcess } from './lib/cycle-process.js';
import { load, type LoadResult } from './lib/cycle-client.js';
import { countsDelta, perCycleText, totalOf, type Counts } from './lib/counting-backend.js';
import { commandStats } from './lib/redis-server.js';
import { emptyFindings, fixed, one, rate, sleep, storeSpec, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { summarizeProfile } from './profile-summary.js';
import { ratio } from './lib/stats.js';

const CONCURRENCY = 10;
/** Sequential cycles counted one by one: nothing else runs, so every backend call belongs to them. */
export const COUNTED_CYCLES = 20;
const TARGETS = { roundTrips: 15, fsyncs: 4, cpuRatio: 1.5, rateRatio: 0.5 };

export interface Throughput {
  load: LoadResult;
  cyclesPerSecond: number;
  cpuMsPerCycle: number;
}

/** Load at 10 for `seconds`; the server's CPU over the same window, per finished cycle. */
export async function throughput(server: CycleProcess, seconds: number, prefix: string): Promise<Throughput> {
  const before = await server.stats();
  const result = await load({ route: one(server.port), concurrency: CONCURRENCY, seconds, maxCycles: 200_000, prefix });
  const after = await server.stats();
  const cycles = Math.max(1, result.cycles);
  return { load: result, cyclesPerSecond: result.cycles / result.seconds, cpuMsPerCycle: (after.cpuUs - before.cpuUs) / 1000 / cycles };
}

export async function warm(server: CycleProcess, prefix: string) {
  await load({ route: one(server.port), concurrency: CONCURRENCY, seconds: 1, maxCycles: 2_000, prefix });
}

/** Self time inside node_modules/openai as a share of the server's busy time. */
async function sdkShare(server: CycleProcess, ctx: CycleContext, label: string): Promise<number> {
  const file = `${ctx.tmp}/${label}.cpuprofile`;
  await server.ask({ type: 'profile', action: 'start' }, 'profiled');
  await load({
    route: one(server.port),
    concurrency: CONCURRENCY,
    seconds: Math.min(3, ctx.seconds),
    maxCycles: 50_000,
    prefix: `${label}-prof`,
  });
  await server.ask({ type: 'profile', action: 'stop', file }, 'profiled');
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), 1_000);
  const msOf = (name: string) => summary.buckets.find((b) => b.name === name)?.ms ?? 0;
  return msOf('package: openai') / Math.max(1, summary.totalMs - msOf('(idle)'));
}

export interface CountedCycles {
  /** Store backend calls by method, over all COUNTED_CYCLES. */
  store: Counts;
  /** Event log calls by method (contract §11), counted apart from the store's. */
  log: Counts;
  /** The log's appends by the events each carried. */
  appendShapes: Counts;
  /** Redis's own command counters over the same cycles, when `redis` was given. */
  redis?: Counts;
}

/**
 * COUNTED_CYCLES questions one after another, nothing else running, so every backend call is theirs: the
 * server's counts (store and log) before and after, and Redis's command counters when given.
 */
export async function countCycles(server: CycleProcess, prefix: string, redis?: { port: number }): Promise<CountedCycles> {
  const before = await server.stats();
  const redisBefore = redis ? await commandStats(redis.port) : undefined;
  const counted = await load({ route: one(server.port), concurrency: 1, seconds: 60, maxCycles: COUNTED_CYCLES, prefix });
  if (counted.cycles !== COUNTED_CYCLES) throw new Error(`${prefix}: counted cycles failed: ${counted.firstError}`);
  // A run may still release its lease after `done` has reached the browser; those calls are the cycle's too.
  await sleep(300);
  const after = await server.stats();
  const out: CountedCycles = {
    store: countsDelta(after.counts, before.counts),
    log: countsDelta(after.logCounts, before.logCounts),
    appendShapes: countsDelta(after.appendShapes, before.appendShapes),
  };
  if (redis && redisBefore) {
    const delta = countsDelta(await commandStats(redis.port), redisBefore);
    delete delta.info;
    out.redis = delta;
  }
  return out;
}

interface BackendCost {
  perCycle: Counts;
  redisCommands?: Counts;
  run: Throughput;
  sdkShare?: number;
}

async function measureBackend(ctx: CycleContext, backend: 'memory' | 'sqlite' | 'redis'): Promise<BackendCost> {
  const server = await CycleProcess.start(backend, ['demo', storeSpec(ctx, backend, 'cost'), ctx.model.baseURL]);
  try {
    await warm(server, `${backend}-warm`);
    const { store: perCycle, redis: redisCommands } = await countCycles(
      server,
      `${backend}-count`,
      backend === 'redis' ? ctx.redis : undefined,
    );
    const run = await throughput(server, ctx.seconds, `${backend}-load`);
    const share = backend === 'memory' ? await sdkShare(server, ctx, backend) : undefined;
    return { perCycle, ...(redisCommands ? { redisCommands } : {}), run, ...(share !== undefined ? { sdkShare: share } : {}) };
  } finally {
    await server.stop();
  }
}

async function measureBare(ctx: CycleContext, profile: boolean): Promise<{ run: Throughput; sdkShare?: number }> {
  const server = await CycleProcess.start('bare', ['bare', '-', ctx.model.baseURL]);
  try {
    await warm(server, 'bare-warm');
    const run = await throughput(server, ctx.seconds, 'bare-load');
    return { run, ...(profile ? { sdkShare: await sdkShare(server, ctx, 'bare') } : {}) };
  } finally {
    await server.stop();
  }
}

/** fsync and fdatasync calls in strace's -c report, or undefined when there is no report. */
function fsyncCalls(report: string): number | undefined {
  let calls: number | undefined;
  for (const line of report.split('\n')) {
    const cols = line.trim().split(/\s+/);
    const name = cols.at(-1);
    if (name === 'fsync' || name === 'fdatasync') calls = (calls ?? 0) + Number(cols[3]);
  }
  if (calls === undefined && /total/.test(report)) return 0;
  return calls;
}

/**
 * Two SQLite servers under strace: one that only starts and stops, one that also serves cycles. The
 * difference is what the cycles cost, whatever opening and closing the file costs.
 */
async function fsyncsPerCycle(ctx: CycleContext): Promise<{ perCycle?: number; why?: string }> {
  if (spawnSync('strace', ['-V'], { stdio: 'ignore' }).status !== 0) return { why: 'strace is not installed' };
  const cycles = 100;
  const totals: number[] = [];
  for (const [run, count] of [
    ['idle', 0],
    ['busy', cycles],
  ] as const) {
    const report = `${ctx.tmp}/strace-${run}.txt`;
    const file = `${ctx.tmp}/fsync-${run}.db`;
    const wrapper = ['strace', '-f', '-c', '-o', report, '-e', 'trace=fsync,fdatasync'];
    let server: CycleProcess;
    try {
      server = await CycleProcess.start(`sqlite under strace (${run})`, ['demo', `sqlite:${file}`, ctx.model.baseURL], { wrapper });
    } catch (err) {
      return { why: `strace could not run the server (${(err as Error).message}; ptrace refused?)` };
    }
    if (count) {
      const result = await load({
        route: one(server.port),
        concurrency: CONCURRENCY,
        seconds: 60,
        maxCycles: count,
        prefix: `fsync-${run}`,
      });
      if (result.cycles !== count) return { why: `cycles failed under strace: ${result.firstError}` };
    }
    await server.stop();
    const calls = existsSync(report) ? fsyncCalls(readFileSync(report, 'utf8')) : undefined;
    if (calls === undefined) return { why: 'strace wrote no report' };
    totals.push(calls);
    rmSync(file, { force: true });
  }
  return { perCycle: (totals[1]! - totals[0]!) / cycles };
}

export async function measureCost(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  const bareFirst = await measureBare(ctx, true);
  const backends: Array<'memory' | 'sqlite' | 'redis'> = ctx.redis ? ['memory', 'sqlite', 'redis'] : ['memory', 'sqlite'];
  const costs = new Map<string, BackendCost>();
  for (const backend of backends) {
    costs.set(backend, await measureBackend(ctx, backend));
    console.log(`cycle cost: ${backend} ${rate(costs.get(backend)!.run.cyclesPerSecond)}`);
  }
  // The baseline is measured before and after the backends, so a neighbour's burst falls on both sides.
  const bareLast = await measureBare(ctx, false);
  const bareRate = (bareFirst.run.cyclesPerSecond + bareLast.run.cyclesPerSecond) / 2;
  const bareCpu = (bareFirst.run.cpuMsPerCycle + bareLast.run.cpuMsPerCycle) / 2;
  const fsyncs = await fsyncsPerCycle(ctx);

  out.tables.push(
    '',
    '| backend | store round trips per cycle | by method | cycles/s at 10 | server CPU ms/cycle | errors |',
    '|---|---|---|---|---|---|',
  );
  out.tables.push(
    `| bare node:http | — | — | ${fixed(bareRate, 0)} | ${fixed(bareCpu, 3)} | ${bareFirst.run.load.errors + bareLast.run.load.errors} |`,
  );
  for (const [backend, cost] of costs) {
    const total = totalOf(cost.perCycle) / COUNTED_CYCLES;
    out.tables.push(
      `| ${backend} | ${fixed(total, 1)} | ${perCycleText(cost.perCycle, COUNTED_CYCLES)} | ${fixed(cost.run.cyclesPerSecond, 0)} | ${fixed(cost.run.cpuMsPerCycle, 3)} | ${cost.run.load.errors} |`,
    );
    out.rows.push({
      group: 'cycle',
      metric: `store round trips per question (${backend})`,
      value: `${fixed(total, 1)} (${perCycleText(cost.perCycle, COUNTED_CYCLES)})`,
      baseline: '',
      ratio: '',
      target: `≤ ${TARGETS.roundTrips}`,
      met: total <= TARGETS.roundTrips,
      raw: { roundTrips: total },
    });
    if (cost.redisCommands) {
      out.rows.push({
        group: 'cycle',
        metric: 'Redis commands per question (INFO commandstats; commands inside scripts included)',
        value: perCycleText(cost.redisCommands, COUNTED_CYCLES),
        baseline: '',
        ratio: '',
        target: 'cross-check',
      });
    }
    if (cost.run.load.errors)
      out.notes.push(`${backend}: ${cost.run.load.errors} cycles failed under load; first: ${cost.run.load.firstError}`);
  }
  out.rows.push({
    group: 'cycle',
    metric: 'SQLite fsyncs per question',
    value: fsyncs.perCycle === undefined ? `not measured (${fsyncs.why})` : fixed(fsyncs.perCycle),
    baseline: '',
    ratio: '',
    target: `≤ ${TARGETS.fsyncs}`,
    ...(fsyncs.perCycle === undefined ? {} : { met: fsyncs.perCycle <= TARGETS.fsyncs, raw: { fsyncs: fsyncs.perCycle } }),
  });
  for (const [backend, cost] of costs) {
    const memory = backend === 'memory';
    out.rows.push({
      group: 'cycle',
      metric: `server CPU per question (${backend})`,
      value: `${fixed(cost.run.cpuMsPerCycle, 3)} ms`,
      baseline: `${fixed(bareCpu, 3)} ms (bare)`,
      ratio: ratio(cost.run.cpuMsPerCycle / bareCpu),
      target: memory ? `≤ ${TARGETS.cpuRatio}×` : 'for information',
      ...(memory ? { met: cost.run.cpuMsPerCycle / bareCpu <= TARGETS.cpuRatio } : {}),
      raw: { cpuMs: cost.run.cpuMsPerCycle, bareCpuMs: bareCpu },
    });
    out.rows.push({
      group: 'cycle',
      metric: `questions/s at 10 concurrent (${backend})`,
      value: rate(cost.run.cyclesPerSecond),
      baseline: `${rate(bareRate)} (bare)`,
      ratio: ratio(cost.run.cyclesPerSecond / bareRate),
      target: memory ? `≥ ${TARGETS.rateRatio}×` : 'for information',
      ...(memory ? { met: cost.run.cyclesPerSecond / bareRate >= TARGETS.rateRatio } : {}),
      raw: { cyclesPerSecond: cost.run.cyclesPerSecond, bareCyclesPerSecond: bareRate },
    });
  }
  const memoryShare = costs.get('memory')?.sdkShare;
  out.rows.push({
    group: 'cycle',
    metric: 'openai SDK self time, share of server CPU (memory)',
    value: memoryShare === undefined ? 'not measured' : `${fixed(100 * memoryShare, 1)}%`,
    baseline: bareFirst.sdkShare === undefined ? '' : `${fixed(100 * bareFirst.sdkShare, 1)}% (bare)`,
    ratio: '',
    target: 'for information',
  });
  out.detail = {
    bare: [bareFirst, bareLast],
    backends: Object.fromEntries(costs),
    countedCycles: COUNTED_CYCLES,
    fsyncs,
  };
  return out;
}
