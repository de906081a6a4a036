/**
 * Whether questions left open cost the ones being answered: questions/s with BENCH_OPEN paused sessions
 * in the store vs with 1,000, on SQLite, Redis, PostgreSQL and Redis Cluster; and how long the demo's own server entry
 * takes from spawn to accepting connections on a store holding those paused runs vs an empty one (and, for
 * information, to its ready line, and how long the startup sweep over every paused run takes). The paused
 * runs are made by the loop itself (chat until the model asks), never by writing store rows, in seeding
 * processes of their own; each rate is measured on a fresh server process. A Redis Cluster has database 0
 * only, so its two populations live on two clusters of this part's own, and its empty store is the
 * benchmark's cluster emptied.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { CycleProcess } from './lib/cycle-process.js';
import { load } from './lib/cycle-client.js';
import { flushAll, freePort } from './lib/redis-server.js';
import { startRedisCluster, type BenchRedisCluster } from './lib/redis-cluster.js';
import { emptyFindings, fixed, one, rate, sleep, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { CHILD_EXEC_ARGV, COMPILED, REPO_ROOT } from './lib/paths.js';
import { ratio } from './lib/stats.js';

const BASE_OPEN = 1_000;
const SEED_CONCURRENCY = 32;
/** Seeding stops here whatever BENCH_OPEN asks; the figure then names the count reached. */
const SEED_BUDGET_MS = Number(process.env.BENCH_SEED_SECONDS ?? 420) * 1000;
const STARTUP_LIMIT_MS = 90_000;
const TARGETS = { scaleRatio: 0.9, startupSeconds: 2 };

const DEMO_SERVER = `${REPO_ROOT}${COMPILED ? 'bench/results/build/demo/server.js' : 'demo/server.ts'}`;

/** The line demo/server.ts prints once its app answers requests (it listens before, answering 503). */
const READY_LINE = 'ask-user-kit demo listening on';

interface Startup {
  /** Spawn to the first accepted connection: the figure with the target. */
  acceptMs: number | undefined;
  /** Spawn to the ready line. */
  readyMs: number | undefined;
  /** The server exited before accepting a connection (its stderr is the step's). */
  exited: boolean;
}

/** Spawn to first accepted connection of demo/server.ts on `storeUrl`, in ms (undefined past the limit); and to its ready line. */
async function startupMs(ctx: CycleContext, storeUrl: string): Promise<Startup> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', ASK_USER_STORE: storeUrl, OPENAI_BASE_URL: ctx.model.baseURL };
  const t0 = performance.now();
  const child = spawn(process.execPath, [...CHILD_EXEC_ARGV, DEMO_SERVER], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let readyMs: number | undefined;
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (readyMs !== undefined) return;
    output += chunk.toString();
    if (output.includes(READY_LINE)) readyMs = performance.now() - t0;
  });
  let took: number | undefined;
  while (performance.now() - t0 < STARTUP_LIMIT_MS && child.exitCode === null) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (accepted) {
      took = performance.now() - t0;
      break;
    }
    await sleep(10);
  }
  const exitedEarly = took === undefined && child.exitCode !== null;
  while (took !== undefined && readyMs === undefined && performance.now() - t0 < STARTUP_LIMIT_MS && child.exitCode === null)
    await sleep(5);
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
  return { acceptMs: took, readyMs, exited: exitedEarly };
}

interface ScaleResult {
  base: number;
  seeded: number;
  /** Chats that failed while seeding each population (the seeder logs its first 5). */
  seedFailed: { base: number; open: number };
  seedSeconds: number;
  /** PostgreSQL: the VACUUM (ANALYZE) and CHECKPOINT after seeding, before measuring. */
  settleSeconds?: number;
  baseRate: number;
  openRate: number;
  startupEmptyMs: (number | undefined)[];
  startupOpenMs: (number | undefined)[];
  readyEmptyMs: (number | undefined)[];
  readyOpenMs: (number | undefined)[];
  /** Startups that ended with the server exiting before it accepted a connection. */
  startupsExited: number;
  /** The startup sweeps of the servers measured on the large store: how long, how many paused runs checked. */
  sweeps: Array<{ ms: number; checked: number } | undefined>;
}

type ScaleBackend = 'sqlite' | 'redis' | 'postgres' | 'redis-cluster';

interface Target {
  backend: ScaleBackend;
  spec: string;
  storeUrl: string;
}

const postgresDatabase = (db: number) => `scale_${db}`;

/** The Redis Clusters of the scale part, by population (SMALL, LARGE, EMPTY). */
type Clusters = Record<number, BenchRedisCluster>;

/** A store of its own per population: a file, a Redis database number, a PostgreSQL database, a Redis Cluster. */
function targetOf(ctx: CycleContext, backend: ScaleBackend, db: number, clusters: Clusters): Target {
  if (backend === 'sqlite') return { backend, spec: `sqlite:${ctx.tmp}/scale-${db}.db`, storeUrl: `sqlite://${ctx.tmp}/scale-${db}.db` };
  if (backend === 'postgres') {
    const url = ctx.postgres!.url(postgresDatabase(db));
    return { backend, spec: `postgres:${url}`, storeUrl: url };
  }
  if (backend === 'redis-cluster') {
    const url = clusters[db]!.url;
    return { backend, spec: `redis-cluster:${url}`, storeUrl: url };
  }
  return { backend, spec: `redis:${ctx.redis!.url}/${db}`, storeUrl: `${ctx.redis!.url}/${db}` };
}
const SMALL = 1;
const LARGE = 2;
const EMPTY = 9;

/**
 * Questions/s of a server process started on the store as it is now. A fresh process each time, so what
 * is measured is what the store holds, not what the process that made the paused runs keeps in memory.
 */
async function rateOn(ctx: CycleContext, target: Target, label: string): Promise<{ rate: number; sweep: CycleProcess['startupSweep'] }> {
  const server = await CycleProcess.start(`${target.backend} scale`, ['demo', target.spec, ctx.model.baseURL]);
  try {
    await load({ route: one(server.port), concurrency: 10, seconds: 1, maxCycles: 5_000, prefix: `${label}-warm` });
    const result = await load({ route: one(server.port), concurrency: 10, seconds: ctx.seconds, maxCycles: 200_000, prefix: label });
    return { rate: result.cycles / result.seconds, sweep: server.startupSweep };
  } finally {
    await server.stop();
  }
}

type Seeded = { seeded: number; failed: number; seconds: number };

/** Every store seeded at once: each seeder takes what a core gives it, and measuring waits for all. */
async function seedAll(ctx: CycleContext, jobs: Array<{ target: Target; count: number }>): Promise<Seeded[]> {
  const seeders = await Promise.all(
    jobs.map(({ target }) => CycleProcess.start(`${target.backend} seeder`, ['demo', target.spec, ctx.model.baseURL])),
  );
  try {
    return await Promise.all(
      seeders.map((s, i) =>
        s.ask(
          { type: 'seed', prefix: 'open', from: 0, to: jobs[i]!.count, concurrency: SEED_CONCURRENCY, deadlineMs: SEED_BUDGET_MS },
          'seeded',
          SEED_BUDGET_MS + 60_000,
        ),
      ),
    );
  } finally {
    await Promise.all(seeders.map((s) => s.stop()));
  }
}

const mean = (values: number[]) => values.reduce((t, v) => t + v, 0) / values.length;

async function measureAll(ctx: CycleContext, backends: ScaleBackend[], clusters: Clusters): Promise<ScaleResult[]> {
  if (ctx.redis) await flushAll(ctx.redis.port);
  if (backends.includes('postgres')) for (const db of [SMALL, LARGE, EMPTY]) await ctx.postgres!.freshDatabase(postgresDatabase(db));
  if (backends.includes('redis-cluster')) await clusters[EMPTY]!.flushAll();
  const jobs = backends.flatMap((b) => [
    { target: targetOf(ctx, b, SMALL, clusters), count: BASE_OPEN },
    { target: targetOf(ctx, b, LARGE, clusters), count: Math.max(BASE_OPEN, ctx.open) },
  ]);
  const seeded = await seedAll(ctx, jobs);
  // The bulk of inserts leaves PostgreSQL an autovacuum and a checkpoint to run, which would fall on the
  // first slices measured (the 1,000 store's); done now, before any. Redis and SQLite have nothing pending.
  let settleSeconds: number | undefined;
  if (backends.includes('postgres')) {
    const t0 = performance.now();
    await ctx.postgres!.settle([postgresDatabase(SMALL), postgresDatabase(LARGE)]);
    settleSeconds = (performance.now() - t0) / 1000;
    console.log(`cycle scale: postgres VACUUM (ANALYZE) and CHECKPOINT after seeding took ${fixed(settleSeconds, 1)} s`);
  }
  const results: ScaleResult[] = [];
  for (const [i, backend] of backends.entries()) {
    const [small, large] = [jobs[2 * i]!.target, jobs[2 * i + 1]!.target];
    const [base, open] = [seeded[2 * i]!, seeded[2 * i + 1]!];
    console.log(`cycle scale: ${backend} seeded ${open.seeded} paused runs in ${fixed(open.seconds, 1)} s`);
    // Alternated, so a neighbour's burst does not land on one side only.
    const rates: Record<'small' | 'large', number[]> = { small: [], large: [] };
    const startups: Record<'empty' | 'large', Startup[]> = { empty: [], large: [] };
    const sweeps: ScaleResult['sweeps'] = [];
    for (let run = 0; run < 2; run++) {
      rates.small.push((await rateOn(ctx, small, `${backend}-small-${run}`)).rate);
      const onLarge = await rateOn(ctx, large, `${backend}-large-${run}`);
      rates.large.push(onLarge.rate);
      sweeps.push(onLarge.sweep);
      startups.empty.push(await startupMs(ctx, targetOf(ctx, backend, EMPTY, clusters).storeUrl));
      startups.large.push(await startupMs(ctx, large.storeUrl));
    }
    results.push({
      base: base.seeded,
      seeded: open.seeded,
      seedFailed: { base: base.failed, open: open.failed },
      ...(backend === 'postgres' && settleSeconds !== undefined ? { settleSeconds } : {}),
      seedSeconds: open.seconds,
      baseRate: mean(rates.small),
      openRate: mean(rates.large),
      startupEmptyMs: startups.empty.map((x) => x.acceptMs),
      startupOpenMs: startups.large.map((x) => x.acceptMs),
      readyEmptyMs: startups.empty.map((x) => x.readyMs),
      readyOpenMs: startups.large.map((x) => x.readyMs),
      sweeps,
      startupsExited: [...startups.empty, ...startups.large].filter((x) => x.exited).length,
    });
  }
  return results;
}

const meanOf = (values: (number | undefined)[]) =>
  values.some((v) => v === undefined) ? undefined : values.reduce((t, v) => t! + v!, 0)! / values.length;
const seconds = (ms: number | undefined) => (ms === undefined ? `> ${STARTUP_LIMIT_MS / 1000} s` : `${fixed(ms / 1000, 2)} s`);

export async function measureScale(ctx: CycleContext): Promise<CycleFindings> {
  const backends: ScaleBackend[] = [
    'sqlite',
    ...(ctx.redis ? ['redis' as const] : []),
    ...(ctx.postgres ? ['postgres' as const] : []),
    ...(ctx.redisCluster ? ['redis-cluster' as const] : []),
  ];
  // A cluster has database 0 only: the 1,000 and the N paused runs get a cluster each, started here, and the
  // empty store is the benchmark's own cluster, emptied (bench/README.md says why not one cluster).
  const clusters: Clusters = {};
  try {
    if (ctx.redisCluster) {
      clusters[EMPTY] = ctx.redisCluster;
      clusters[SMALL] = await startRedisCluster();
      clusters[LARGE] = await startRedisCluster();
    }
    return findings(ctx, backends, await measureAll(ctx, backends, clusters));
  } finally {
    await clusters[SMALL]?.stop();
    await clusters[LARGE]?.stop();
  }
}

function findings(ctx: CycleContext, backends: ScaleBackend[], results: ScaleResult[]): CycleFindings {
  const out = emptyFindings();
  out.tables.push(
    '',
    '| scale, backend | paused runs | startup: accepts a connection (each run) | startup: ready line (each run) | empty store: accepts / ready line | startup sweep over the paused runs (each server on them) |',
    '|---|---|---|---|---|---|',
  );
  for (const [i, backend] of backends.entries()) {
    const r = results[i]!;
    out.detail[backend] = r;
    const n = r.seeded.toLocaleString('en-US');
    if (r.startupsExited)
      out.notes.push(
        `${backend}: the demo server exited before accepting a connection in ${r.startupsExited} of 4 startups (its error is in the step's output)`,
      );
    if (r.seedFailed.base + r.seedFailed.open)
      out.notes.push(
        `${backend}: chats that failed while seeding: ${r.seedFailed.open.toLocaleString('en-US')} of the large population, ${r.seedFailed.base} of the ${BASE_OPEN.toLocaleString('en-US')} (each seeder's first errors are in the step's output)`,
      );
    if (r.seeded + r.seedFailed.open < ctx.open)
      out.notes.push(`${backend}: seeding stopped at ${n} of ${ctx.open.toLocaleString('en-US')} paused runs (time budget)`);
    out.rows.push({
      group: 'cycle',
      metric: `questions/s with ${n} open vs ${r.base.toLocaleString('en-US')} open (${backend})`,
      value: rate(r.openRate),
      baseline: rate(r.baseRate),
      ratio: ratio(r.openRate / r.baseRate),
      target: `≥ ${TARGETS.scaleRatio}×`,
      met: r.openRate / r.baseRate >= TARGETS.scaleRatio,
      raw: { open: r.seeded, openRate: r.openRate, baseRate: r.baseRate, seedSeconds: r.seedSeconds },
    });
    const open = meanOf(r.startupOpenMs);
    const empty = meanOf(r.startupEmptyMs);
    out.rows.push({
      group: 'cycle',
      metric: `demo server startup with ${n} paused runs (${backend})`,
      value: seconds(open),
      baseline: `${seconds(empty)} (empty store)`,
      ratio: open !== undefined && empty !== undefined ? ratio(open / empty) : '',
      target: `≤ ${TARGETS.startupSeconds} s`,
      met: open !== undefined && open <= TARGETS.startupSeconds * 1000,
      ...(open !== undefined && empty !== undefined ? { raw: { startupMs: open, emptyStartupMs: empty } } : {}),
    });
    const each = (values: (number | undefined)[]) => values.map(seconds).join(', ');
    const sweepText = r.sweeps
      .map((sw) => (sw ? `${fixed(sw.ms / 1000, 1)} s (${sw.checked.toLocaleString('en-US')} checked)` : '—'))
      .join(', ');
    out.tables.push(
      `| ${backend} | ${n} | ${each(r.startupOpenMs)} | ${each(r.readyOpenMs)} | ${each(r.startupEmptyMs)} / ${each(r.readyEmptyMs)} | ${sweepText} |`,
    );
  }
  return out;
}
