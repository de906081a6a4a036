/**
 * What one question costs on each backend: store round trips (counted at the backend; on Redis and Redis
 * Cluster also by the servers' own command counters, on PostgreSQL by pg_stat_statements), SQLite fsyncs (strace), server CPU and cycles/s
 * at 10 concurrent browsers beside a bare node:http server doing the same two exchanges with the same
 * `openai` client, and the client's share of the server's CPU from a V8 profile. Then PostgreSQL against
 * Redis in alternated slices on two servers running side by side: questions/s, the demo server's CPU and
 * the database server's CPU per question.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { CycleProcess } from './lib/cycle-process.js';
import { load, type LoadResult } from './lib/cycle-client.js';
import { countsDelta, perCycleText, totalOf, type Counts } from './lib/counting-backend.js';
import { commandStats, redisCpuSeconds } from './lib/redis-server.js';
import { statementKind, type BenchPostgres } from './lib/postgres-server.js';
import type { BenchRedisCluster } from './lib/redis-cluster.js';
import {
  emptyFindings,
  fixed,
  one,
  postgresSpec,
  rate,
  sleep,
  storeSpec,
  type CycleContext,
  type CycleFindings,
} from './lib/cycle-context.js';
import { summarizeProfile } from './profile-summary.js';
import { ratio } from './lib/stats.js';

const CONCURRENCY = 10;
/** Sequential cycles counted one by one: nothing else runs, so every backend call belongs to them. */
export const COUNTED_CYCLES = 20;
const TARGETS = { roundTrips: 15, fsyncs: 4, cpuRatio: 1.5, rateRatio: 0.5, postgresVsRedis: 0.5 };

type BackendName = 'memory' | 'sqlite' | 'redis' | 'postgres' | 'redis-cluster';

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
  /** Redis's own command counters over the same cycles (a cluster's summed over its masters), when `redis` was given. */
  redis?: Counts;
  /** The top-level statements PostgreSQL ran on the store's database (pg_stat_statements), by kind, when `postgres` was given. */
  postgres?: Counts;
}

/** Statements run on `database` since the server started, by kind (`insert kv`, `log_append`, …). */
async function statementsByKind(postgres: BenchPostgres, database: string): Promise<Counts> {
  const out: Counts = {};
  for (const [query, calls] of Object.entries(await postgres.statementStats(database))) {
    const kind = statementKind(query);
    out[kind] = (out[kind] ?? 0) + calls;
  }
  return out;
}

/** A Redis server's command counters, or a cluster's over its masters. */
const redisCommands = (redis: { port: number } | BenchRedisCluster): Promise<Counts> =>
  'commandStats' in redis ? redis.commandStats() : commandStats(redis.port);

/**
 * COUNTED_CYCLES questions one after another, nothing else running, so every backend call is theirs: the
 * server's counts (store and log) before and after, and Redis's command counters when given.
 */
export async function countCycles(
  server: CycleProcess,
  prefix: string,
  redis?: { port: number } | BenchRedisCluster,
  postgres?: { server: BenchPostgres; database: string },
): Promise<CountedCycles> {
  const before = await server.stats();
  const redisBefore = redis ? await redisCommands(redis) : undefined;
  const postgresBefore = postgres?.server.statements ? await statementsByKind(postgres.server, postgres.database) : undefined;
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
    const delta = countsDelta(await redisCommands(redis), redisBefore);
    // The bench's own INFO, and a cluster's replicas acknowledging their replication stream each second.
    delete delta.info;
    delete delta.replconf;
    out.redis = delta;
  }
  if (postgres && postgresBefore) {
    out.postgres = countsDelta(await statementsByKind(postgres.server, postgres.database), postgresBefore);
  }
  return out;
}

interface BackendCost {
  perCycle: Counts;
  redisCommands?: Counts;
  postgresStatements?: Counts;
  run: Throughput;
  /** Redis and Redis Cluster: the database server's CPU over the load, ms per question (a cluster's six nodes together). */
  databaseCpuMs?: number;
  sdkShare?: number;
}

/** CPU seconds of the backend's database server(s) so far, where the bench can read them cheaply. */
function databaseCpu(ctx: CycleContext, backend: BackendName): (() => Promise<number>) | undefined {
  if (backend === 'redis') return () => redisCpuSeconds(ctx.redis!.port);
  if (backend === 'redis-cluster') return () => ctx.redisCluster!.cpuSeconds();
  return undefined;
}

const COST_DATABASE = 'cost';

async function measureBackend(ctx: CycleContext, backend: BackendName): Promise<BackendCost> {
  const spec = backend === 'postgres' ? await postgresSpec(ctx, COST_DATABASE) : storeSpec(ctx, backend, 'cost');
  const server = await CycleProcess.start(backend, ['demo', spec, ctx.model.baseURL]);
  try {
    await warm(server, `${backend}-warm`);
    const counted = await countCycles(
      server,
      `${backend}-count`,
      backend === 'redis' ? ctx.redis : backend === 'redis-cluster' ? ctx.redisCluster : undefined,
      backend === 'postgres' ? { server: ctx.postgres!, database: COST_DATABASE } : undefined,
    );
    const { store: perCycle, redis: redisCommands, postgres: postgresStatements } = counted;
    const cpu = databaseCpu(ctx, backend);
    const cpuBefore = await cpu?.();
    const run = await throughput(server, ctx.seconds, `${backend}-load`);
    const cpuAfter = await cpu?.();
    const databaseCpuMs =
      cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / Math.max(1, run.load.cycles) : undefined;
    const share = backend === 'memory' ? await sdkShare(server, ctx, backend) : undefined;
    return {
      perCycle,
      ...(redisCommands ? { redisCommands } : {}),
      ...(postgresStatements ? { postgresStatements } : {}),
      run,
      ...(databaseCpuMs !== undefined ? { databaseCpuMs } : {}),
      ...(share !== undefined ? { sdkShare: share } : {}),
    };
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

/** Slices per backend in the PostgreSQL ÷ Redis comparison, alternated: Redis first in even rounds. */
const VERSUS_ROUNDS = 4;
/** A Redis database and a PostgreSQL database of the comparison's own, both empty at its start. */
const VERSUS_REDIS_DB = 3;
const VERSUS_DATABASE = 'versus';

interface VersusSlice {
  backend: 'redis' | 'postgres';
  round: number;
  cycles: number;
  seconds: number;
  errors: number;
  /** The demo server's CPU (its process), ms. */
  serverCpuMs: number;
  /** The database server's CPU over the slice (redis-server; PostgreSQL's postmaster and every backend), ms. */
  databaseCpuMs: number;
}

/**
 * PostgreSQL against Redis in one run: a demo server on each, both started before the first slice and
 * kept running, loaded one at a time at 10 concurrent browsers, Redis first in even rounds and PostgreSQL
 * first in odd ones, so a neighbour's burst of load falls on both sides alike.
 */
async function measureVersus(ctx: CycleContext): Promise<VersusSlice[]> {
  const redis = ctx.redis!;
  const postgres = ctx.postgres!;
  const specs = { redis: `redis:${redis.url}/${VERSUS_REDIS_DB}`, postgres: await postgresSpec(ctx, VERSUS_DATABASE) };
  const servers = {
    redis: await CycleProcess.start('redis versus', ['demo', specs.redis, ctx.model.baseURL]),
    postgres: await CycleProcess.start('postgres versus', ['demo', specs.postgres, ctx.model.baseURL]),
  };
  const databaseCpu = { redis: () => redisCpuSeconds(redis.port), postgres: async () => postgres.cpuSeconds() };
  const slices: VersusSlice[] = [];
  try {
    await warm(servers.redis, 'redis-versus-warm');
    await warm(servers.postgres, 'postgres-versus-warm');
    for (let round = 0; round < VERSUS_ROUNDS; round++) {
      const order = round % 2 === 0 ? (['redis', 'postgres'] as const) : (['postgres', 'redis'] as const);
      for (const backend of order) {
        const dbBefore = await databaseCpu[backend]();
        const run = await throughput(servers[backend], ctx.seconds, `${backend}-versus-${round}`);
        const dbAfter = await databaseCpu[backend]();
        slices.push({
          backend,
          round,
          cycles: run.load.cycles,
          seconds: run.load.seconds,
          errors: run.load.errors,
          serverCpuMs: run.cpuMsPerCycle * Math.max(1, run.load.cycles),
          databaseCpuMs: (dbAfter - dbBefore) * 1000,
        });
      }
    }
  } finally {
    await Promise.all([servers.redis.stop(), servers.postgres.stop()]);
  }
  return slices;
}

/** Questions/s and CPU ms per question over the slices of one backend. */
function versusTotals(slices: VersusSlice[], backend: 'redis' | 'postgres') {
  const mine = slices.filter((x) => x.backend === backend);
  const cycles = Math.max(
    1,
    mine.reduce((t, x) => t + x.cycles, 0),
  );
  const sum = (f: (x: VersusSlice) => number) => mine.reduce((t, x) => t + f(x), 0);
  return {
    rate: sum((x) => x.cycles) / sum((x) => x.seconds),
    serverCpuMs: sum((x) => x.serverCpuMs) / cycles,
    databaseCpuMs: sum((x) => x.databaseCpuMs) / cycles,
    errors: sum((x) => x.errors),
  };
}

function versusFindings(out: CycleFindings, slices: VersusSlice[]): void {
  const redis = versusTotals(slices, 'redis');
  const postgres = versusTotals(slices, 'postgres');
  const rounds = [...new Set(slices.map((x) => x.round))];
  const roundRatios = rounds.map((round) => {
    const of = (b: string) => slices.find((x) => x.round === round && x.backend === b)!;
    return of('postgres').cycles / of('postgres').seconds / (of('redis').cycles / of('redis').seconds);
  });
  const range = `${fixed(Math.min(...roundRatios))}–${fixed(Math.max(...roundRatios))}× by round`;
  out.rows.push({
    group: 'cycle',
    metric: `questions/s at 10 concurrent, PostgreSQL vs Redis (${rounds.length} alternated slices each; ${range})`,
    value: rate(postgres.rate),
    baseline: `${rate(redis.rate)} (Redis)`,
    ratio: ratio(postgres.rate / redis.rate),
    target: `≥ ${TARGETS.postgresVsRedis}×`,
    met: postgres.rate / redis.rate >= TARGETS.postgresVsRedis,
    raw: { postgresCyclesPerSecond: postgres.rate, redisCyclesPerSecond: redis.rate },
  });
  out.rows.push({
    group: 'cycle',
    metric: 'server CPU per question, PostgreSQL vs Redis (the same slices)',
    value: `${fixed(postgres.serverCpuMs, 3)} ms`,
    baseline: `${fixed(redis.serverCpuMs, 3)} ms (Redis)`,
    ratio: ratio(postgres.serverCpuMs / redis.serverCpuMs),
    target: 'for information',
    raw: { postgresCpuMs: postgres.serverCpuMs, redisCpuMs: redis.serverCpuMs },
  });
  out.rows.push({
    group: 'cycle',
    metric: 'database server CPU per question, PostgreSQL (every process of it) vs redis-server (the same slices)',
    value: `${fixed(postgres.databaseCpuMs, 3)} ms`,
    baseline: `${fixed(redis.databaseCpuMs, 3)} ms (Redis)`,
    ratio: ratio(postgres.databaseCpuMs / redis.databaseCpuMs),
    target: 'for information',
    raw: { postgresDatabaseCpuMs: postgres.databaseCpuMs, redisDatabaseCpuMs: redis.databaseCpuMs },
  });
  out.tables.push(
    '',
    '| PostgreSQL vs Redis, slice | backend | questions/s | demo server CPU ms/question | database server CPU ms/question | errors |',
    '|---|---|---|---|---|---|',
    ...slices.map(
      (x) =>
        `| ${x.round + 1} | ${x.backend} | ${fixed(x.cycles / x.seconds, 0)} | ${fixed(x.serverCpuMs / Math.max(1, x.cycles), 3)} | ${fixed(x.databaseCpuMs / Math.max(1, x.cycles), 3)} | ${x.errors} |`,
    ),
  );
  for (const [name, totals] of [
    ['Redis', redis],
    ['PostgreSQL', postgres],
  ] as const)
    if (totals.errors) out.notes.push(`${name} vs: ${totals.errors} cycles failed under load in the alternated slices`);
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
  const backends: BackendName[] = [
    'memory',
    'sqlite',
    ...(ctx.redis ? ['redis' as const] : []),
    ...(ctx.postgres ? ['postgres' as const] : []),
    ...(ctx.redisCluster ? ['redis-cluster' as const] : []),
  ];
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
  const versus = ctx.redis && ctx.postgres ? await measureVersus(ctx) : undefined;

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
        metric:
          backend === 'redis-cluster'
            ? 'Redis Cluster commands per question (INFO commandstats of the masters; commands inside scripts included; wait: a write confirmed by a replica)'
            : 'Redis commands per question (INFO commandstats; commands inside scripts included)',
        value: perCycleText(cost.redisCommands, COUNTED_CYCLES),
        baseline: '',
        ratio: '',
        target: 'cross-check',
      });
    }
    if (cost.postgresStatements) {
      out.rows.push({
        group: 'cycle',
        metric: 'PostgreSQL statements per question (pg_stat_statements, top level: the store and its event log)',
        value: perCycleText(cost.postgresStatements, COUNTED_CYCLES),
        baseline: '',
        ratio: '',
        target: 'cross-check',
      });
    } else if (backend === 'postgres') {
      out.notes.push('PostgreSQL: statements not counted at the server (pg_stat_statements is not installed)');
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
  const [redisCost, clusterCost] = [costs.get('redis'), costs.get('redis-cluster')];
  if (redisCost?.databaseCpuMs !== undefined && clusterCost?.databaseCpuMs !== undefined) {
    out.rows.push({
      group: 'cycle',
      metric: "database server CPU per question, Redis Cluster (its six nodes) vs redis-server (each backend's load slice)",
      value: `${fixed(clusterCost.databaseCpuMs, 3)} ms`,
      baseline: `${fixed(redisCost.databaseCpuMs, 3)} ms (Redis)`,
      ratio: ratio(clusterCost.databaseCpuMs / redisCost.databaseCpuMs),
      target: 'for information',
      raw: { clusterDatabaseCpuMs: clusterCost.databaseCpuMs, redisDatabaseCpuMs: redisCost.databaseCpuMs },
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
  if (versus) versusFindings(out, versus);
  else if (ctx.postgres) out.notes.push('PostgreSQL vs Redis not measured: Redis is not installed');
  out.detail = {
    ...(versus ? { versus } : {}),
    bare: [bareFirst, bareLast],
    backends: Object.fromEntries(costs),
    countedCycles: COUNTED_CYCLES,
    fsyncs,
  };
  return out;
}
