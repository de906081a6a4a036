/**
 * Benchmark 2 — the plugin's HTTP routes under load (not a test). For each adapter (Koa, Express 5, Hono
 * on @hono/node-server) a child server of bench/http-server.ts serves the kit's routes and the same
 * framework's bare routes; autocannon on 127.0.0.1 drives them in the same run, each run bounded in time
 * and, for continue, in count:
 *   - `GET /api/interactions/pending` at 10 and 100 connections vs that framework's bare JSON GET with the
 *     same body;
 *   - `POST /api/chat/continue` at 10 connections (a fresh pending question per request, instant host) vs
 *     that framework's bare POST parsing the same JSON body and answering the same three SSE frames in one
 *     write; for information, the same frames one write per frame.
 * Latency percentiles come from every response's own time (autocannon's histogram has 1 ms steps).
 * Run: `node --import tsx bench/http-routes.ts [--frameworks koa,express,hono] [--seconds S] [--warmup S]`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon, { type Request } from 'autocannon';
import type { ChildMessage, ParentMessage } from './http-server.js';
import { FRAMEWORKS, type Framework } from './lib/frameworks.js';
import { ms, perSecond, ratio, summarize, type Summary } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';
import { CHILD_EXEC_ARGV, sibling } from './lib/paths.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const list = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]!.split(',') : undefined;
};
const SECONDS = arg('seconds', 4);
/** `--profile DIR`: the server writes a V8 CPU profile there per measured slice (for finding what costs the time). */
const profileAt = process.argv.indexOf('--profile');
const PROFILE_DIR = profileAt > 0 ? process.argv[profileAt + 1] : undefined;
/** `--only pending,continue`: run just these routes (plus the bare baselines). */
const ONLY = list('only') ? new Set(list('only')) : undefined;
const WARMUP_SECONDS = arg('warmup', 1);
const ROUNDS = arg('rounds', 2);
const SETTLE_MS = arg('settle', 0.5) * 1000;
/** `--frameworks koa,hono`: only these adapters. */
const frameworks = (list('frameworks') ?? [...FRAMEWORKS]) as Framework[];
/** `--connections 10`: only these levels. */
const levels = (list('connections') ?? ['10', '100']).map(Number);
const PENDING_SESSIONS = 1000;
const TARGETS = { pending: 0.8, continue: 0.5, continueP99Ms: 5 };
/** Which routes run at which level: continue and its SSE baselines at 10 connections, pending at both. */
const ROUTES_AT: Record<number, readonly string[]> = {
  10: ['bare', 'pending', 'bareSse', 'bareSseSplit', 'continue'],
  100: ['bare', 'pending'],
};
const wanted = (key: string) => key.startsWith('bare') || !ONLY || ONLY.has(key);

const started = performance.now();

/** One framework's bench server in its own process, and the IPC to it. */
class Server {
  readonly inbox: ChildMessage[] = [];
  private wake: (() => void) | undefined;
  private exited = false;
  readonly child: ChildProcess;
  constructor(readonly framework: Framework) {
    this.child = fork(sibling(import.meta.url, 'http-server'), [framework], {
      execArgv: CHILD_EXEC_ARGV,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: ChildMessage) => {
      this.inbox.push(m);
      this.wake?.();
    });
    this.child.on('exit', (code) => {
      this.exited = true;
      if (code !== 0 && code !== null) {
        console.error(`${framework} bench server exited with ${code}`);
        process.exit(1);
      }
    });
  }
  async receive<T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> {
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === type);
      if (i >= 0) return this.inbox.splice(i, 1)[0] as Extract<ChildMessage, { type: T }>;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
  ask(m: ParentMessage) {
    this.child.send(m);
  }
  async prepare(prefix: string, count: number): Promise<string[]> {
    this.ask({ type: 'prepare', prefix, count });
    return (await this.receive('prepared')).requestIds;
  }
  async close() {
    if (this.exited) return;
    const exit = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.disconnect();
    await exit;
  }
}

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
async function profiled<T>(server: Server, label: string, run: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return run();
  mkdirSync(PROFILE_DIR, { recursive: true });
  server.ask({ type: 'profile', action: 'start' });
  await server.receive('profiled');
  const result = await run();
  const file = `${PROFILE_DIR}/${label}.cpuprofile`;
  server.ask({ type: 'profile', action: 'stop', file });
  await server.receive('profiled');
  console.log(`server CPU profile of ${label}: ${file}`);
  return result;
}

/**
 * One bounded autocannon run; `max` caps the total sent. The first SETTLE_MS of a run are left out of
 * rate and latency alike: every run opens its connections afresh, and at 100 connections the first
 * request on each queues behind the others' handshakes, which says nothing about the route.
 */
async function load(url: string, connections: number, seconds: number, request: Request, max?: number): Promise<Slice> {
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

/** The same query as pending's, rebuilt per request as pending's is, so the load generator's work matches. */
let bareTurn = 0;
const bareJson: Request = {
  method: 'GET',
  path: '/bare/json?sessionId=pend-0',
  setupRequest: (req) => ({ ...req, path: `/bare/json?sessionId=pend-${bareTurn++ % PENDING_SESSIONS}` }),
};
let pendingTurn = 0;
const pending: Request = {
  method: 'GET',
  path: '/api/interactions/pending?sessionId=pend-0',
  setupRequest: (req) => ({ ...req, path: `/api/interactions/pending?sessionId=pend-${pendingTurn++ % PENDING_SESSIONS}` }),
};
const answerBody = (prefix: string, n: number, requestId: string) =>
  JSON.stringify({ sessionId: `${prefix}-${n}`, requestId, selections: ['safe'], customInput: '', cancelled: false });

/** Continue requests over prepared questions, each sent once. */
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

/**
 * The bare POSTs need no stored question: any well-formed body of the same size will do. Each request
 * gets its own body built the way continue's are, so the load generator (on the same 2 cores) spends on a
 * bare request what it spends on a continue request.
 */
function bareSsePost(path: string): Request {
  let next = 0;
  const id = (n: number) => `ask_${String(n % 1e6).padStart(22, 'x')}`;
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: answerBody('cont1', 0, id(0)),
    setupRequest: (req) => {
      const n = next++;
      return { ...req, body: answerBody('cont1', n, id(n)) };
    },
  };
}
const bareSse = bareSsePost('/bare/sse');
const bareSseSplit = bareSsePost('/bare/sse-split');

/** A route as the benchmark drives it: a warm-up, then slices run in turn with the other routes. */
interface Route {
  key: string;
  warm(connections: number): Promise<number>;
  slice(connections: number, seconds: number, label: string): Promise<Slice>;
}

function routesOf(server: Server, url: string): Route[] {
  /** A route whose requests can repeat. */
  const plain = (key: string, request: Request): Route => ({
    key,
    warm: async (c) => {
      const s = await load(url, c, WARMUP_SECONDS, request);
      return s.ok / s.seconds;
    },
    slice: (c, seconds, label) => profiled(server, label, () => load(url, c, seconds, request)),
  });
  let batch = 0;
  /** Continue consumes a question per request: each slice gets fresh ones, enough for well above the warm-up rate. */
  const continueRoute = (): Route => {
    const rate = new Map<number, number>();
    return {
      key: 'continue',
      async warm(c) {
        const prefix = `warm${++batch}`;
        const ids = await server.prepare(prefix, 8_000);
        const s = await load(url, c, WARMUP_SECONDS, continueRequests(prefix, ids), ids.length);
        rate.set(c, s.ok / s.seconds);
        return s.ok / s.seconds;
      },
      async slice(c, seconds, label) {
        const prefix = `cont${++batch}`;
        // A one-second warm-up underestimates the steady rate; 2.5× of it, at least 8,000/s, rarely runs out.
        const ids = await server.prepare(prefix, Math.ceil(Math.max((rate.get(c) ?? 0) * 2.5, 8000) * seconds));
        const s = await profiled(server, label, () => load(url, c, seconds, continueRequests(prefix, ids), ids.length));
        if (s.sent >= ids.length)
          console.warn(
            `continue at ${c} connections used all ${ids.length} prepared questions before ${seconds} s; its rate is over ${s.seconds.toFixed(1)} s`,
          );
        return s;
      },
    };
  };
  return [
    plain('bare', bareJson),
    plain('pending', pending),
    plain('bareSse', bareSse),
    plain('bareSseSplit', bareSseSplit),
    continueRoute(),
  ];
}

type Stats = Extract<ChildMessage, { type: 'stats' }>;
const results: Record<string, Record<string, Record<number, Load>>> = {};
const serverStats: Record<string, Stats> = {};
const phases: string[] = [];

for (const framework of frameworks) {
  const server = new Server(framework);
  const { port } = await server.receive('ready');
  const url = `http://127.0.0.1:${port}`;
  await server.prepare('pend', PENDING_SESSIONS);
  const all = routesOf(server, url);
  const measured: Record<string, Record<number, Load>> = {};
  for (const c of levels) {
    const routes = all.filter((r) => (ROUTES_AT[c] ?? ROUTES_AT[100]!).includes(r.key) && wanted(r.key));
    for (const route of routes) await route.warm(c);
    // Each route runs in ROUNDS slices taken in turn, so a neighbour's burst of load (the machine is
    // shared) falls on every route alike instead of on whichever happened to run at that moment.
    const slices = new Map<string, Slice[]>(routes.map((r) => [r.key, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of routes) {
        const from = performance.now() - started;
        slices
          .get(route.key)!
          .push(await route.slice(c, SECONDS / ROUNDS + SETTLE_MS / 1000, `${framework}-${route.key}-${c}-${round + 1}`));
        phases.push(`${framework} ${route.key}@${c} ${(from / 1000).toFixed(1)}–${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    }
    for (const route of routes) (measured[route.key] ??= {})[c] = combine(slices.get(route.key)!);
  }
  server.ask({ type: 'stats' });
  serverStats[framework] = await server.receive('stats');
  await server.close();
  results[framework] = measured;
}

const NAMES: Record<Framework, string> = { koa: 'Koa', express: 'Express', hono: 'Hono' };
const rows: ResultRow[] = [];
const table: Record<string, Record<string, string>> = {};
const clean = (r: Load) => r.other === 0 && r.errors === 0;
for (const framework of frameworks) {
  const measured = results[framework]!;
  const name = NAMES[framework];
  const group = `HTTP routes on ${name} (autocannon, ${SECONDS} s per route, memory store)`;
  for (const c of levels) {
    const b = measured.bare?.[c];
    const s = measured.bareSse?.[c];
    for (const [label, key, against] of [
      [`GET bare ${name} JSON`, 'bare', b],
      ['GET /api/interactions/pending', 'pending', b],
      [`POST bare ${name} → 3 SSE frames, one write`, 'bareSse', s],
      ['  same, one write per frame', 'bareSseSplit', s],
      ['POST /api/chat/continue', 'continue', s],
    ] as const) {
      const r = measured[key]?.[c];
      if (!r) continue;
      table[`${framework} ${label} @${c}`] = {
        'req/s': perSecond(r.rps),
        '÷ baseline': against ? ratio(r.rps / against.rps) : '—',
        p50: ms(r.latency.p50),
        p99: ms(r.latency.p99),
        '2xx': String(r.ok),
        'non-2xx': String(r.other),
        errors: String(r.errors),
      };
    }
    const p = measured.pending?.[c];
    if (b && p) {
      const pendingRatio = p.rps / b.rps;
      rows.push({
        group,
        metric: `\`GET /api/interactions/pending\` req/s, ${c} connections`,
        value: `${perSecond(p.rps)}, p99 ${ms(p.latency.p99)}`,
        baseline: `${perSecond(b.rps)}, p99 ${ms(b.latency.p99)} bare ${name} JSON GET`,
        ratio: ratio(pendingRatio),
        target: `≥ ${TARGETS.pending}×`,
        met: pendingRatio >= TARGETS.pending && clean(p),
        raw: {
          connections: c,
          rps: p.rps,
          p99Ms: p.latency.p99,
          bareRps: b.rps,
          bareP99Ms: b.latency.p99,
          ratio: pendingRatio,
          non2xx: p.other,
          errors: p.errors,
        },
      });
    }
    const k = measured.continue?.[c];
    if (s && k) {
      const continueRatio = k.rps / s.rps;
      rows.push({
        group,
        metric: `\`POST /api/chat/continue\` req/s (instant host), ${c} connections`,
        value: `${perSecond(k.rps)}, p99 ${ms(k.latency.p99)}`,
        baseline: `${perSecond(s.rps)}, p99 ${ms(s.latency.p99)} bare ${name} POST → same 3 SSE frames`,
        ratio: ratio(continueRatio),
        target: `≥ ${TARGETS.continue}×, p99 ≤ ${TARGETS.continueP99Ms} ms`,
        met: continueRatio >= TARGETS.continue && k.latency.p99 <= TARGETS.continueP99Ms && clean(k),
        raw: {
          connections: c,
          rps: k.rps,
          p50Ms: k.latency.p50,
          p99Ms: k.latency.p99,
          bareSseRps: s.rps,
          bareSseP99Ms: s.latency.p99,
          ratio: continueRatio,
          non2xx: k.other,
          errors: k.errors,
        },
      });
    }
    const split = measured.bareSseSplit?.[c];
    if (s && split) {
      rows.push({
        group,
        metric: `bare ${name} POST → 3 SSE frames, one write per frame, ${c} connections`,
        value: `${perSecond(split.rps)}, p99 ${ms(split.latency.p99)}`,
        baseline: `${perSecond(s.rps)} same frames in one write`,
        ratio: ratio(split.rps / s.rps),
        target: '— (for information)',
        raw: { connections: c, rps: split.rps, p99Ms: split.latency.p99, oneWriteRps: s.rps, ratio: split.rps / s.rps },
      });
    }
  }
}

if (process.argv.includes('--phases')) {
  console.log(`phases (parent clock): ${phases.join('; ')}`);
  for (const [framework, stats] of Object.entries(serverStats)) {
    console.log(
      `${framework} long GCs (child clock): ${stats.longGcs.map((g) => `${(g.atMs / 1000).toFixed(1)}s ${g.ms}ms k${g.kind}`).join(', ')}`,
    );
    console.log(
      `${framework} stalls (child clock, end of stall): ${stats.stalls.map((g) => `${(g.atMs / 1000).toFixed(1)}s ${g.ms}ms`).join(', ')}`,
    );
  }
}
for (const [framework, stats] of Object.entries(serverStats)) {
  const gcMs = stats.longGcs.reduce((t, g) => t + g.ms, 0);
  const longest = [...stats.stalls].sort((a, b) => b.ms - a.ms).slice(0, 3);
  console.log(
    `${framework} server: GCs over 20 ms: ${stats.longGcs.length} (${gcMs} ms in all); event-loop stalls over 50 ms: ${stats.stalls.length}` +
      `${longest.length ? `, longest ${longest.map((st) => `${st.ms} ms at ${(st.atMs / 1000).toFixed(1)} s`).join(', ')}` : ''}; resumed ${stats.resumed} runs, RSS ${(stats.rssBytes / 2 ** 20).toFixed(0)} MiB at the end`,
  );
}
console.log(`HTTP routes: ${SECONDS} s per route and level in ${ROUNDS} interleaved slices after ${WARMUP_SECONDS} s warm-up`);
console.table(table);
writePart({
  name: '2-http-routes',
  seconds: (performance.now() - started) / 1000,
  rows,
  notes: [
    `autocannon, ${SECONDS} s measured per route and level in ${ROUNDS} interleaved slices (each slice's first ${SETTLE_MS / 1000} s of connection set-up left out) after ${WARMUP_SECONDS} s warm-up; one server process per framework, run one after the other; latencies from each 2xx response`,
  ],
  detail: results,
});
