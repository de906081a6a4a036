/**
 * Benchmark 2 — the plugin's HTTP routes under load (not a test). autocannon on 127.0.0.1 against the
 * child server of bench/http-server.ts, at 10 and 100 connections, each run bounded in time:
 *   - `GET /api/interactions/pending` vs a bare Koa JSON route with the same body;
 *   - `POST /api/chat/continue` (a fresh pending question per request, instant host) vs the same bare
 *     JSON route, plus, for information, a bare POST that reads the same body and writes three SSE frames.
 * Latency percentiles come from every response's own time (autocannon's histogram has 1 ms steps).
 * Run: `node --import tsx bench/http-routes.ts [--seconds S] [--warmup S]`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon, { type Request } from 'autocannon';
import type { ChildMessage, ParentMessage } from './http-server.js';
import { ms, perSecond, ratio, summarize, type Summary } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';
import { CHILD_EXEC_ARGV, sibling } from './lib/paths.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 5);
/** `--profile DIR`: the server writes a V8 CPU profile there (for finding what costs the time). */
const profileAt = process.argv.indexOf('--profile');
const PROFILE_DIR = profileAt > 0 ? process.argv[profileAt + 1] : undefined;
/** `--only pending,continue`: run just these routes (plus the bare baseline). */
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt > 0 ? new Set(process.argv[onlyAt + 1]!.split(',')) : undefined;
const wanted = (key: string) => key === 'bare' || !ONLY || ONLY.has(key);
const WARMUP_SECONDS = arg('warmup', 1);
const ROUNDS = arg('rounds', 2);
const SETTLE_MS = arg('settle', 0.5) * 1000;
const CONNECTIONS = [10, 100] as const;
const PENDING_SESSIONS = 1000;
const TARGETS = { pending: 0.6, continue: 0.3, continueP99Ms: 10 };

const started = performance.now();
const child: ChildProcess = fork(sibling(import.meta.url, 'http-server'), [], {
  execArgv: CHILD_EXEC_ARGV,
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const inbox: ChildMessage[] = [];
let wake: (() => void) | undefined;
child.on('message', (m: ChildMessage) => {
  inbox.push(m);
  wake?.();
});
child.on('exit', (code) => {
  if (code !== 0 && code !== null) {
    console.error(`bench server exited with ${code}`);
    process.exit(1);
  }
});
async function receive<T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> {
  for (;;) {
    const i = inbox.findIndex((m) => m.type === type);
    if (i >= 0) return inbox.splice(i, 1)[0] as Extract<ChildMessage, { type: T }>;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}
const ask = (m: ParentMessage) => child.send(m);
async function prepare(prefix: string, count: number): Promise<string[]> {
  ask({ type: 'prepare', prefix, count });
  return (await receive('prepared')).requestIds;
}

const { port } = await receive('ready');
const url = `http://127.0.0.1:${port}`;

interface Load {
  rps: number;
  latency: Summary;
  ok: number;
  other: number;
  errors: number;
  seconds: number;
}

/** What one autocannon run saw; several slices of one route add up to its Load. */
interface Slice {
  /** Requests autocannon sent, settling period included. */
  sent: number;
  latencies: number[];
  ok: number;
  other: number;
  errors: number;
  seconds: number;
}

function combine(slices: readonly Slice[]): Load {
  const latencies = slices.flatMap((s) => s.latencies);
  const sum = (key: 'ok' | 'other' | 'errors' | 'seconds') => slices.reduce((t, s) => t + s[key], 0);
  return {
    rps: sum('ok') / sum('seconds'),
    latency: latencies.length ? summarize(latencies) : { count: 0, p50: NaN, p99: NaN, mean: NaN, min: NaN, max: NaN },
    ok: sum('ok'),
    other: sum('other'),
    errors: sum('errors'),
    seconds: sum('seconds'),
  };
}

/** Profile the server while `run` goes, when `--profile DIR` asked for it. */
async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return run();
  mkdirSync(PROFILE_DIR, { recursive: true });
  ask({ type: 'profile', action: 'start' });
  await receive('profiled');
  const result = await run();
  const file = `${PROFILE_DIR}/${label}.cpuprofile`;
  ask({ type: 'profile', action: 'stop', file });
  await receive('profiled');
  console.log(`server CPU profile of ${label}: ${file}`);
  return result;
}

/**
 * One bounded autocannon run; `max` caps the total sent. The first SETTLE_MS of a run are left out of
 * rate and latency alike: every run opens its connections afresh, and at 100 connections the first
 * request on each queues behind the others' handshakes, which says nothing about the route.
 */
async function load(connections: number, seconds: number, request: Request, max?: number): Promise<Slice> {
  const latencies: number[] = [];
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [request],
    ...(max !== undefined ? { maxOverallRequests: max } : {}),
  });
  const t0 = performance.now();
  let last = t0;
  instance.on('response', (_client, status, _bytes, responseTime) => {
    const now = performance.now();
    if (now - t0 < SETTLE_MS || status < 200 || status >= 300) return;
    latencies.push(responseTime);
    last = now;
  });
  const result = await instance;
  return {
    sent: result['2xx'] + result.non2xx,
    latencies,
    ok: latencies.length,
    other: result.non2xx,
    errors: result.errors + result.timeouts,
    seconds: Math.max(0.001, (last - t0 - SETTLE_MS) / 1000),
  };
}

const bareJson: Request = { method: 'GET', path: '/bare/json' };
let pendingTurn = 0;
const pending: Request = {
  method: 'GET',
  path: '/api/interactions/pending?sessionId=pend-0',
  setupRequest: (req) => ({ ...req, path: `/api/interactions/pending?sessionId=pend-${pendingTurn++ % PENDING_SESSIONS}` }),
};
const answerBody = (prefix: string, n: number, requestId: string) =>
  JSON.stringify({ sessionId: `${prefix}-${n}`, requestId, selections: ['safe'], customInput: '', cancelled: false });

/** Continue requests over prepared questions, each sent once; `undefined` once they run out. */
function continueRequests(prefix: string, ids: string[]): Request {
  let next = 0;
  return {
    method: 'POST',
    path: '/api/chat/continue',
    headers: { 'content-type': 'application/json' },
    body: answerBody(prefix, 0, ids[0]!),
    setupRequest: (req) => {
      const n = Math.min(next++, ids.length - 1);
      return { ...req, body: answerBody(prefix, n, ids[n]!) };
    },
  };
}

/** A route as the benchmark drives it: a warm-up, then slices run in turn with the other routes. */
interface Route {
  key: string;
  warm(connections: number): Promise<number>;
  slice(connections: number, seconds: number, label: string): Promise<Slice>;
}

/** A route whose requests can repeat. */
const plain = (key: string, request: Request): Route => ({
  key,
  warm: async (c) => {
      const s = await load(c, WARMUP_SECONDS, request);
    return s.ok / s.seconds;
  },
  slice: (c, seconds, label) => profiled(label, () => load(c, seconds, request)),
});

let batch = 0;
/** Continue consumes a question per request: each slice gets fresh ones, enough for well above the warm-up rate. */
function continueRoute(): Route {
  const rate = new Map<number, number>();
  return {
    key: 'continue',
    async warm(c) {
      const prefix = `warm${++batch}`;
      const ids = await prepare(prefix, 6_000);
      const s = await load(c, WARMUP_SECONDS, continueRequests(prefix, ids), ids.length);
      rate.set(c, s.ok / s.seconds);
      return s.ok / s.seconds;
    },
    async slice(c, seconds, label) {
      const prefix = `cont${++batch}`;
      // A one-second warm-up underestimates the steady rate; 1.5× of it, at least 4,000/s, rarely runs out.
      const ids = await prepare(prefix, Math.ceil(Math.max((rate.get(c) ?? 0) * 1.5, 4000) * seconds));
      const s = await profiled(label, () => load(c, seconds, continueRequests(prefix, ids), ids.length));
      if (s.sent >= ids.length) console.warn(`continue at ${c} connections used all ${ids.length} prepared questions before ${seconds} s; its rate is over ${s.seconds.toFixed(1)} s`);
      return s;
    },
  };
}

/** The bare POST needs no stored question: any well-formed body of the same size will do. */
const bareSse: Request = {
  method: 'POST',
  path: '/bare/sse',
  headers: { 'content-type': 'application/json' },
  body: answerBody('cont1', 0, `ask_${'x'.repeat(22)}`),
};

const connectionsAt = process.argv.indexOf('--connections');
const levels = connectionsAt > 0 ? process.argv[connectionsAt + 1]!.split(',').map(Number) : [...CONNECTIONS];
await prepare('pend', PENDING_SESSIONS);
const bareSseSplit: Request = { ...bareSse, path: '/bare/sse-split' };
const routes = [plain('bare', bareJson), plain('pending', pending), plain('bareSse', bareSse), plain('bareSseSplit', bareSseSplit), continueRoute()].filter((r) => wanted(r.key));
const phases: string[] = [];
const results: Record<string, Record<number, Load>> = { bare: {}, pending: {}, continue: {}, bareSse: {}, bareSseSplit: {} };
for (const c of levels) {
  for (const route of routes) await route.warm(c);
  // Each route runs in ROUNDS slices taken in turn, so a neighbour's burst of load (the machine is
  // shared) falls on every route alike instead of on whichever happened to run at that moment.
  const slices = new Map<string, Slice[]>(routes.map((r) => [r.key, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of routes) {
      const from = performance.now() - started;
      slices.get(route.key)!.push(await route.slice(c, SECONDS / ROUNDS + SETTLE_MS / 1000, `${route.key}-${c}-${round + 1}`));
      phases.push(`${route.key}@${c} ${(from / 1000).toFixed(1)}–${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  for (const route of routes) results[route.key]![c] = combine(slices.get(route.key)!);
}
ask({ type: 'stats' });
const stats = await receive('stats');
child.disconnect();
await new Promise((resolve) => child.once('exit', resolve));

const rows: ResultRow[] = [];
const table: Record<string, Record<string, string>> = {};
for (const c of levels) {
  const b = results.bare![c];
  for (const [name, key] of [['GET bare Koa JSON', 'bare'], ['GET /api/interactions/pending', 'pending'], ['POST bare Koa JSON → 3 SSE frames', 'bareSse'], ['  same, one write per frame (as sse-writer)', 'bareSseSplit'], ['POST /api/chat/continue', 'continue']] as const) {
    const r = results[key]![c];
    if (!r || !b) continue;
    table[`${name} @${c}`] = {
      'req/s': perSecond(r.rps),
      '÷ bare JSON': ratio(r.rps / b.rps),
      p50: ms(r.latency.p50),
      p99: ms(r.latency.p99),
      '2xx': String(r.ok),
      'non-2xx': String(r.other),
      errors: String(r.errors),
    };
  }
  const p = results.pending![c];
  const k = results.continue![c];
  const s = results.bareSse![c];
  if (!b || !p || !k || !s) continue;
  const pendingRatio = p.rps / b.rps;
  const continueRatio = k.rps / b.rps;
  const clean = (r: Load) => r.other === 0 && r.errors === 0;
  rows.push({
    group: `HTTP routes, ${c} connections (autocannon, ${SECONDS} s, memory store)`,
    metric: '`GET /api/interactions/pending` req/s',
    value: `${perSecond(p.rps)}, p99 ${ms(p.latency.p99)}`,
    baseline: `${perSecond(b.rps)}, p99 ${ms(b.latency.p99)} bare Koa JSON`,
    ratio: ratio(pendingRatio),
    target: `≥ ${TARGETS.pending}×`,
    met: pendingRatio >= TARGETS.pending && clean(p),
    raw: { connections: c, rps: p.rps, p99Ms: p.latency.p99, bareRps: b.rps, bareP99Ms: b.latency.p99, ratio: pendingRatio, non2xx: p.other, errors: p.errors },
  });
  rows.push({
    group: `HTTP routes, ${c} connections (autocannon, ${SECONDS} s, memory store)`,
    metric: '`POST /api/chat/continue` req/s (instant host)',
    value: `${perSecond(k.rps)}, p99 ${ms(k.latency.p99)}`,
    baseline: `${perSecond(b.rps)} bare Koa JSON (bare POST → SSE: ${perSecond(s.rps)}, ${ratio(k.rps / s.rps)})`,
    ratio: ratio(continueRatio),
    target: `≥ ${TARGETS.continue}×, p99 ≤ ${TARGETS.continueP99Ms} ms`,
    met: continueRatio >= TARGETS.continue && k.latency.p99 <= TARGETS.continueP99Ms && clean(k),
    raw: { connections: c, rps: k.rps, p50Ms: k.latency.p50, p99Ms: k.latency.p99, bareRps: b.rps, bareSseRps: s.rps, ratio: continueRatio, non2xx: k.other, errors: k.errors },
  });
  const split = results.bareSseSplit![c];
  if (split) {
    rows.push({
      group: `HTTP routes, ${c} connections (autocannon, ${SECONDS} s, memory store)`,
      metric: 'bare POST → 3 SSE frames, one socket write per frame (as sse-writer.ts writes)',
      value: `${perSecond(split.rps)}, p99 ${ms(split.latency.p99)}`,
      baseline: `${perSecond(s.rps)}, p99 ${ms(s.latency.p99)} same frames in one write`,
      ratio: ratio(split.rps / s.rps),
      target: '— (explains continue)',
      raw: { connections: c, rps: split.rps, p99Ms: split.latency.p99, oneWriteRps: s.rps, ratio: split.rps / s.rps },
    });
  }
}

if (process.argv.includes('--phases')) {
  console.log(`phases (parent clock, child boots ~0.5 s later): ${phases.join('; ')}`);
  console.log(`long GCs (child clock): ${stats.longGcs.map((g) => `${(g.atMs / 1000).toFixed(1)}s ${g.ms}ms k${g.kind}`).join(', ')}`);
  console.log(`stalls (child clock, end of stall): ${stats.stalls.map((g) => `${(g.atMs / 1000).toFixed(1)}s ${g.ms}ms`).join(', ')}`);
}
const gcMs = stats.longGcs.reduce((t, g) => t + g.ms, 0);
console.log(`server GCs over 20 ms: ${stats.longGcs.length} (${gcMs} ms in all), longest ${Math.max(0, ...stats.longGcs.map((g) => g.ms))} ms`);
const longest = [...stats.stalls].sort((a, b) => b.ms - a.ms).slice(0, 5);
console.log(`server event-loop stalls over 50 ms: ${stats.stalls.length}${longest.length ? `, longest ${longest.map((s) => `${s.ms} ms at ${(s.atMs / 1000).toFixed(1)} s`).join(', ')}` : ''}`);
console.log(`HTTP routes: ${SECONDS} s per route in ${ROUNDS} interleaved slices after ${WARMUP_SECONDS} s warm-up; server resumed ${stats.resumed} runs, RSS ${(stats.rssBytes / 2 ** 20).toFixed(0)} MiB at the end`);
console.table(table);
writePart({
  name: '2-http-routes',
  seconds: (performance.now() - started) / 1000,
  rows,
  notes: [`autocannon, ${SECONDS} s measured per route and level in ${ROUNDS} interleaved slices (each slice's first ${SETTLE_MS / 1000} s of connection set-up left out) after ${WARMUP_SECONDS} s warm-up; server in its own process; latencies from each 2xx response`],
  detail: results,
});
