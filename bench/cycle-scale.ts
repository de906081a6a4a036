/**
 * Whether questions left open cost the ones being answered: questions/s with BENCH_OPEN paused sessions
 * in the store vs with 1,000, on SQLite and Redis; and how long the demo's own server entry takes from
 * spawn to accepting connections on a store holding those paused runs vs an empty one. The paused runs are
 * made by the loop itself (chat until the model asks), never by writing store rows, in seeding processes of
 * their own; each rate is measured on a fresh server process.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { CycleProcess } from './lib/cycle-process.js';
import { load } from './lib/cycle-client.js';
import { flushAll, freePort } from './lib/redis-server.js';
import { emptyFindings, fixed, one, rate, sleep, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { CHILD_EXEC_ARGV, COMPILED, REPO_ROOT } from './lib/paths.js';
import { ratio } from './lib/stats.js';

const BASE_OPEN = 1_000;
const SEED_CONCURRENCY = 32;
/** Seeding stops here whatever BENCH_OPEN asks; the figure then names the count reached. */
const SEED_BUDGET_MS = Number(process.env.BENCH_SEED_SECONDS ?? 150) * 1000;
const STARTUP_LIMIT_MS = 90_000;
const TARGETS = { scaleRatio: 0.9, startupSeconds: 2 };

const DEMO_SERVER = `${REPO_ROOT}${COMPILED ? 'bench/results/build/demo/server.js' : 'demo/server.ts'}`;

/** Spawn to first accepted connection of demo/server.ts on `storeUrl`, in ms; undefined past the limit. */
async function startupMs(ctx: CycleContext, storeUrl: string): Promise<number | undefined> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', ASK_USER_STORE: storeUrl, OPENAI_BASE_URL: ctx.model.baseURL };
  const t0 = performance.now();
  const child = spawn(process.execPath, [...CHILD_EXEC_ARGV, DEMO_SERVER], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(killer);
  return took;
}

interface ScaleResult {
  base: number;
  seeded: number;
  seedSeconds: number;
  baseRate: number;
  openRate: number;
  startupEmptyMs: (number | undefined)[];
  startupOpenMs: (number | undefined)[];
}

interface Target {
  backend: 'sqlite' | 'redis';
  spec: string;
  storeUrl: string;
}

/** A store of its own per population: a file, or a Redis database number. */
function targetOf(ctx: CycleContext, backend: 'sqlite' | 'redis', db: number): Target {
  if (backend === 'sqlite') return { backend, spec: `sqlite:${ctx.tmp}/scale-${db}.db`, storeUrl: `sqlite://${ctx.tmp}/scale-${db}.db` };
  return { backend, spec: `redis:${ctx.redis!.url}/${db}`, storeUrl: `${ctx.redis!.url}/${db}` };
}
const SMALL = 1;
const LARGE = 2;
const EMPTY = 9;

/**
 * Questions/s of a server process started on the store as it is now. A fresh process each time, so what
 * is measured is what the store holds, not what the process that made the paused runs keeps in memory.
 */
async function rateOn(ctx: CycleContext, target: Target, label: string): Promise<number> {
  const server = await CycleProcess.start(`${target.backend} scale`, ['demo', target.spec, ctx.model.baseURL]);
  try {
    await load({ route: one(server.port), concurrency: 10, seconds: 1, maxCycles: 5_000, prefix: `${label}-warm` });
    const result = await load({ route: one(server.port), concurrency: 10, seconds: ctx.seconds, maxCycles: 200_000, prefix: label });
    return result.cycles / result.seconds;
  } finally {
    await server.stop();
  }
}

type Seeded = { seeded: number; seconds: number };

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

async function measureAll(ctx: CycleContext, backends: Array<'sqlite' | 'redis'>): Promise<ScaleResult[]> {
  if (ctx.redis) await flushAll(ctx.redis.port);
  const jobs = backends.flatMap((b) => [
    { target: targetOf(ctx, b, SMALL), count: BASE_OPEN },
    { target: targetOf(ctx, b, LARGE), count: Math.max(BASE_OPEN, ctx.open) },
  ]);
  const seeded = await seedAll(ctx, jobs);
  const results: ScaleResult[] = [];
  for (const [i, backend] of backends.entries()) {
    const [small, large] = [jobs[2 * i]!.target, jobs[2 * i + 1]!.target];
    const [base, open] = [seeded[2 * i]!, seeded[2 * i + 1]!];
    console.log(`cycle scale: ${backend} seeded ${open.seeded} paused runs in ${fixed(open.seconds, 1)} s`);
    // Alternated, so a neighbour's burst does not land on one side only.
    const rates: Record<'small' | 'large', number[]> = { small: [], large: [] };
    const startups: Record<'empty' | 'large', (number | undefined)[]> = { empty: [], large: [] };
    for (let run = 0; run < 2; run++) {
      rates.small.push(await rateOn(ctx, small, `${backend}-small-${run}`));
      rates.large.push(await rateOn(ctx, large, `${backend}-large-${run}`));
      startups.empty.push(await startupMs(ctx, targetOf(ctx, backend, EMPTY).storeUrl));
      startups.large.push(await startupMs(ctx, large.storeUrl));
    }
    results.push({
      base: base.seeded,
      seeded: open.seeded,
      seedSeconds: open.seconds,
      baseRate: mean(rates.small),
      openRate: mean(rates.large),
      startupEmptyMs: startups.empty,
      startupOpenMs: startups.large,
    });
  }
  return results;
}

const meanOf = (values: (number | undefined)[]) =>
  values.some((v) => v === undefined) ? undefined : values.reduce((t, v) => t! + v!, 0)! / values.length;
const seconds = (ms: number | undefined) => (ms === undefined ? `> ${STARTUP_LIMIT_MS / 1000} s` : `${fixed(ms / 1000, 2)} s`);

export async function measureScale(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  const backends: Array<'sqlite' | 'redis'> = ctx.redis ? ['sqlite', 'redis'] : ['sqlite'];
  const results = await measureAll(ctx, backends);
  for (const [i, backend] of backends.entries()) {
    const r = results[i]!;
    out.detail[backend] = r;
    const n = r.seeded.toLocaleString('en-US');
    if (r.seeded < ctx.open)
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
  }
  return out;
}
