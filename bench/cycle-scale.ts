/**
 * Whether questions left open cost the ones being answered: questions/s with BENCH_OPEN paused sessions
 * in the store vs with 1,000, on SQLite and Redis; and how long the demo's own server entry takes from
 * spawn to accepting connections on a store holding those paused runs vs an empty one. The paused runs are
 * made by the loop itself (chat until the model asks), never by writing store rows.
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
const SEED_BUDGET_MS = Number(process.env.BENCH_SEED_SECONDS ?? 100) * 1000;
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

async function measureBackend(ctx: CycleContext, backend: 'sqlite' | 'redis'): Promise<ScaleResult> {
  const file = `${ctx.tmp}/scale.db`;
  const spec = backend === 'sqlite' ? `sqlite:${file}` : `redis:${ctx.redis!.url}`;
  const storeUrl = backend === 'sqlite' ? `sqlite://${file}` : ctx.redis!.url;
  // An empty database for the empty start: a fresh file, or another Redis database number.
  const emptyUrl = backend === 'sqlite' ? `sqlite://${ctx.tmp}/empty.db` : `${ctx.redis!.url}/9`;
  if (backend === 'redis') await flushAll(ctx.redis!.port);
  const server = await CycleProcess.start(`${backend} scale`, ['demo', spec, ctx.model.baseURL]);
  const prefix = `open-${backend}`;
  let result: ScaleResult;
  try {
    const base = await server.ask(
      { type: 'seed', prefix, from: 0, to: BASE_OPEN, concurrency: SEED_CONCURRENCY, deadlineMs: 60_000 },
      'seeded',
      90_000,
    );
    await load({ route: one(server.port), concurrency: 10, seconds: 1, maxCycles: 5_000, prefix: `${backend}-scale-warm` });
    const baseLoad = await load({
      route: one(server.port),
      concurrency: 10,
      seconds: ctx.seconds,
      maxCycles: 200_000,
      prefix: `${backend}-scale-1k`,
    });
    const more = await server.ask(
      {
        type: 'seed',
        prefix,
        from: BASE_OPEN,
        to: Math.max(BASE_OPEN, ctx.open),
        concurrency: SEED_CONCURRENCY,
        deadlineMs: SEED_BUDGET_MS,
      },
      'seeded',
      SEED_BUDGET_MS + 60_000,
    );
    console.log(`cycle scale: ${backend} seeded ${base.seeded + more.seeded} paused runs in ${fixed(base.seconds + more.seconds, 1)} s`);
    const openLoad = await load({
      route: one(server.port),
      concurrency: 10,
      seconds: ctx.seconds,
      maxCycles: 200_000,
      prefix: `${backend}-scale-n`,
    });
    result = {
      base: base.seeded,
      seeded: base.seeded + more.seeded,
      seedSeconds: base.seconds + more.seconds,
      baseRate: baseLoad.cycles / baseLoad.seconds,
      openRate: openLoad.cycles / openLoad.seconds,
      startupEmptyMs: [],
      startupOpenMs: [],
    };
  } finally {
    await server.stop();
  }
  // Alternated, so a neighbour's burst does not land on one side only.
  for (let i = 0; i < 2; i++) {
    result.startupEmptyMs.push(await startupMs(ctx, emptyUrl));
    result.startupOpenMs.push(await startupMs(ctx, storeUrl));
  }
  return result;
}

const meanOf = (values: (number | undefined)[]) =>
  values.some((v) => v === undefined) ? undefined : values.reduce((t, v) => t! + v!, 0)! / values.length;
const seconds = (ms: number | undefined) => (ms === undefined ? `> ${STARTUP_LIMIT_MS / 1000} s` : `${fixed(ms / 1000, 2)} s`);

export async function measureScale(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  const backends: Array<'sqlite' | 'redis'> = ctx.redis ? ['sqlite', 'redis'] : ['sqlite'];
  for (const backend of backends) {
    const r = await measureBackend(ctx, backend);
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
