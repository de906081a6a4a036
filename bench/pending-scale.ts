/**
 * Benchmark 3 — does a pending question cost the same at 1k and at 100k sessions? (not a test). Each size
 * runs in a fresh child process with `--expose-gc`: it asks one question per session through the kit
 * (memory store, expiry timers on, as by default), measures heap and RSS growth per question after full
 * GCs, then times random lookups: `store.currentOf(sessionId)` (what the pending route reads) and
 * `store.get(requestId)` (what continue reads). Ratios are 100k ÷ 1k, measured in the same run.
 * Run: `node --import tsx bench/pending-scale.ts [--sizes 1000,100000] [--lookups N]`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { createAskUserKit } from '../plugin/index.js';
import { discardingAudit, QUESTION_ARGUMENTS } from './lib/bench-kit.js';
import { bytes, ms, ratio, summarize, type Summary } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';
import { CHILD_EXEC_ARGV } from './lib/paths.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const TARGET = 1.2;

interface SizeResult {
  sessions: number;
  heapPerQuestion: number;
  rssPerQuestion: number;
  createSeconds: number;
  currentOf: Summary;
  get: Summary;
}

/** Full collections until the heap stops shrinking, so a delta holds live objects only. */
function settledHeap(): { heap: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the child with --expose-gc');
  let last = Infinity;
  for (let i = 0; i < 6; i++) {
    gc();
    const { heapUsed } = process.memoryUsage();
    if (last - heapUsed < 16 * 1024) break;
    last = heapUsed;
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

async function measureSize(sessions: number, lookups: number): Promise<SizeResult> {
  const kit = createAskUserKit({ logger: discardingAudit(), heartbeatMs: 0 });
  const call = (n: number) => [{ id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } }];
  const sessionOf = (n: number) => `scale-session-${String(n).padStart(7, '0')}`;
  // Warm the code path (and open the lazy store) before the first measurement.
  for (let n = 0; n < 200; n++) await kit.intercept(call(n), { sessionId: `warm-${n}` });
  const ids: string[] = new Array(sessions);
  const before = settledHeap();
  const t0 = performance.now();
  for (let n = 0; n < sessions; n++) ids[n] = (await kit.intercept(call(n), { sessionId: sessionOf(n) })).interaction!.requestId;
  const createSeconds = (performance.now() - t0) / 1000;
  const after = settledHeap();

  // Same pseudo-random order in every size's process, so both see the same access pattern.
  let seed = 12345;
  const pick = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % sessions);
  const time = async (op: (n: number) => Promise<unknown>) => {
    for (let i = 0; i < lookups / 4; i++) await op(pick());
    const samples = new Array<number>(lookups);
    for (let i = 0; i < lookups; i++) {
      const n = pick();
      const start = performance.now();
      const found = await op(n);
      samples[i] = performance.now() - start;
      if (!found) throw new Error(`lookup ${n} found nothing`);
    }
    return summarize(samples);
  };
  const currentOf = await time((n) => kit.store.currentOf(sessionOf(n)));
  const get = await time((n) => kit.store.get(ids[n]!));
  await kit.close();
  return {
    sessions,
    heapPerQuestion: (after.heap - before.heap) / sessions,
    rssPerQuestion: (after.rss - before.rss) / sessions,
    createSeconds,
    currentOf,
    get,
  };
}

const childAt = process.argv.indexOf('--child');
if (childAt > 0) {
  const result = await measureSize(Number(process.argv[childAt + 1]), Number(arg('lookups', '50000')));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const started = performance.now();
const sizes = arg('sizes', '1000,100000').split(',').map(Number);
const lookups = arg('lookups', '50000');
const self = fileURLToPath(import.meta.url);
const runner = CHILD_EXEC_ARGV;
const results: SizeResult[] = sizes.map((n) => {
  const out = execFileSync(process.execPath, ['--expose-gc', ...runner, self, '--child', String(n), '--lookups', lookups], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop()!) as SizeResult;
});

const table: Record<string, Record<string, string>> = {};
for (const [i, r] of results.entries()) {
  table[`#${i + 1}: ${r.sessions.toLocaleString('en-US')} sessions`] = {
    'heap / question': bytes(r.heapPerQuestion),
    'RSS / question': bytes(r.rssPerQuestion),
    'ask (create) total': `${r.createSeconds.toFixed(2)} s`,
    'currentOf p50': ms(r.currentOf.p50),
    'currentOf p99': ms(r.currentOf.p99),
    'get p50': ms(r.get.p50),
    'get p99': ms(r.get.p99),
  };
}
console.log(`pending lookups and memory (memory store), ${lookups} random lookups per size:`);
console.table(table);

const rows: ResultRow[] = [];
const small = results[0]!;
const large = results[results.length - 1]!;
if (results.length >= 2) {
  const k = (n: number) => `${(n / 1000).toLocaleString('en-US')}k`;
  const group = `Pending lookups, ${k(large.sessions)} vs ${k(small.sessions)} sessions (memory store)`;
  const row = (metric: string, a: number, b: number, fmt: (x: number) => string, target: boolean): ResultRow => ({
    group,
    metric,
    value: `${fmt(a)} at ${k(large.sessions)}`,
    baseline: `${fmt(b)} at ${k(small.sessions)}`,
    ratio: ratio(a / b),
    target: target ? `≤ ${TARGET}×` : '—',
    ...(target ? { met: a / b <= TARGET } : {}),
    raw: { large: a, small: b, ratio: a / b },
  });
  rows.push(row('heap per pending question', large.heapPerQuestion, small.heapPerQuestion, bytes, true));
  rows.push(row('RSS per pending question', large.rssPerQuestion, small.rssPerQuestion, bytes, false));
  rows.push(row('lookup `currentOf(sessionId)` p50', large.currentOf.p50, small.currentOf.p50, ms, true));
  rows.push(row('lookup `currentOf(sessionId)` p99', large.currentOf.p99, small.currentOf.p99, ms, false));
  rows.push(row('lookup `get(requestId)` p50', large.get.p50, small.get.p50, ms, true));
}
writePart({
  name: '3-pending-scale',
  seconds: (performance.now() - started) / 1000,
  rows,
  notes: [
    `${lookups} random lookups per size after a quarter as many warm-up lookups; heap/RSS growth after full GCs, one fresh process per size`,
    'SQLite is not measured at 100k: each create is two WAL commits (~4 ms here), so seeding 100k questions would take minutes',
  ],
  detail: results,
});
