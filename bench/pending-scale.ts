/**
 * Benchmark 3 — does a pending question cost the same at 1k and at 100k sessions? (not a test). One
 * process holds two kits side by side (memory store, expiry timers on, as by default): one with 1k
 * sessions, one with 100k, each session with one pending question asked through the kit. Memory is the
 * heap and RSS growth per question after full GCs, per kit. Lookups alternate between the two kits in
 * small batches, so a noisy neighbour slows both alike: `store.currentOf(sessionId)` (what the pending
 * route reads) and `store.get(requestId)` (what continue reads), each timed alone, random sessions.
 * Ratios are 100k ÷ 1k. Run: `node --import tsx bench/pending-scale.ts [--sizes 1000,100000] [--lookups N]`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance } from 'node:perf_hooks';
import { createAskUserKit, type AskUserKit } from '../plugin/index.js';
import { discardingAudit, QUESTION_ARGUMENTS } from './lib/bench-kit.js';
import { bytes, ms, ratio, summarize, type Summary } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';
import { allowAnyCaller } from '../plugin/core/authorization.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const TARGET = 1.2;
const BATCH = 500;

// A full GC on demand without asking every caller for --expose-gc.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Full collections until the heap stops shrinking, so a delta holds live objects only. */
function settledMemory(): { heap: number; rss: number } {
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

interface Sized {
  sessions: number;
  kit: AskUserKit;
  sessionOf(n: number): string;
  ids: string[];
  heapPerQuestion: number;
  rssPerQuestion: number;
  createSeconds: number;
  currentOf: number[];
  get: number[];
}

const call = (n: number) => [{ id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } }];

async function build(sessions: number, tag: string): Promise<Sized> {
  const kit = createAskUserKit({ authorize: allowAnyCaller, logger: discardingAudit(), heartbeatMs: 0 });
  // Open the lazy store and warm the code path before the first measurement.
  for (let n = 0; n < 200; n++) await kit.intercept(call(n), { sessionId: `${tag}-warm-${n}` });
  const sessionOf = (n: number) => `${tag}-session-${String(n).padStart(7, '0')}`;
  const ids: string[] = new Array(sessions);
  const before = settledMemory();
  const t0 = performance.now();
  for (let n = 0; n < sessions; n++) ids[n] = (await kit.intercept(call(n), { sessionId: sessionOf(n) })).interaction!.requestId;
  const createSeconds = (performance.now() - t0) / 1000;
  const after = settledMemory();
  return {
    sessions,
    kit,
    sessionOf,
    ids,
    heapPerQuestion: (after.heap - before.heap) / sessions,
    rssPerQuestion: (after.rss - before.rss) / sessions,
    createSeconds,
    currentOf: [],
    get: [],
  };
}

const started = performance.now();
const sizes = arg('sizes', '1000,100000').split(',').map(Number);
const lookups = Number(arg('lookups', '40000'));
const kits: Sized[] = [];
for (const [i, n] of sizes.entries()) kits.push(await build(n, `k${i}`));

// The same pseudo-random sequence for every kit, scaled to its size.
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
async function batch(k: Sized, record: boolean) {
  for (let i = 0; i < BATCH; i++) {
    const n = Math.floor(random() * k.sessions);
    const t = performance.now();
    const current = await k.kit.store.currentOf(k.sessionOf(n));
    const mid = performance.now();
    const record_ = await k.kit.store.get(k.ids[n]!);
    const end = performance.now();
    if (!current || !record_) throw new Error(`lookup ${n} of ${k.sessions} found nothing`);
    if (record) {
      k.currentOf.push(mid - t);
      k.get.push(end - mid);
    }
  }
}
const rounds = Math.ceil(lookups / BATCH);
for (let r = 0; r < rounds + Math.ceil(rounds / 4); r++) {
  // Alternate which kit goes first; the first quarter of the rounds is warm-up.
  const order = r % 2 === 0 ? kits : [...kits].reverse();
  for (const k of order) await batch(k, r >= Math.ceil(rounds / 4));
}
for (const k of kits) await k.kit.close();

interface SizeResult {
  sessions: number;
  heapPerQuestion: number;
  rssPerQuestion: number;
  createSeconds: number;
  currentOf: Summary;
  get: Summary;
}
const results: SizeResult[] = kits.map((k) => ({
  sessions: k.sessions,
  heapPerQuestion: k.heapPerQuestion,
  rssPerQuestion: k.rssPerQuestion,
  createSeconds: k.createSeconds,
  currentOf: summarize(k.currentOf),
  get: summarize(k.get),
}));

const table: Record<string, Record<string, string>> = {};
for (const r of results) {
  table[`${r.sessions.toLocaleString('en-US')} sessions`] = {
    'heap / question': bytes(r.heapPerQuestion),
    'RSS / question': bytes(r.rssPerQuestion),
    'asking all': `${r.createSeconds.toFixed(2)} s`,
    'currentOf p50': ms(r.currentOf.p50),
    'currentOf p99': ms(r.currentOf.p99),
    'get p50': ms(r.get.p50),
    'get p99': ms(r.get.p99),
  };
}
console.log(`pending lookups and memory (memory store), ${results[0]?.currentOf.count} lookups of each kind per size, interleaved:`);
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
  rows.push(row('lookup `currentOf(sessionId)` p99', large.currentOf.p99, small.currentOf.p99, ms, true));
  rows.push(row('lookup `get(requestId)` p50', large.get.p50, small.get.p50, ms, false));
}
writePart({
  name: '3-pending-scale',
  seconds: (performance.now() - started) / 1000,
  rows,
  notes: [
    `${small.currentOf.count} timed lookups of each kind per size, alternating between the two stores in batches of ${BATCH} after a warm-up; heap/RSS growth after full GCs (RSS at 1k is dominated by allocator granularity)`,
    'SQLite is not measured at 100k: each create is two WAL commits (~4 ms here), so seeding 100k questions would take minutes',
  ],
  detail: results,
});
