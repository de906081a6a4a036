/**
 * What a chat stream costs while it waits on the model: server RSS and heap per open stream from 500 to 1,000
 * held open (the model answers nobody until the end), beside the bare server holding as many; then how many
 * store writes per second the server makes while 1,000 streams wait, none of them doing anything.
 */
import { CycleProcess } from './lib/cycle-process.js';
import { load, openChat } from './lib/cycle-client.js';
import { countsDelta, totalOf } from './lib/counting-backend.js';
import { emptyFindings, fixed, one, sleep, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { bytes, ratio } from './lib/stats.js';

const STREAMS = 500;
const IDLE_STREAMS = 1_000;
const IDLE_SECONDS = 10;
const TARGETS = { memoryRatio: 2, idleWritesPerSecond: 20 };

/** Resolves once the model holds `count` requests, or throws after `limitMs`. */
export async function modelHolds(ctx: CycleContext, count: number, limitMs = 30_000) {
  const until = Date.now() + limitMs;
  while (ctx.model.held < count) {
    if (Date.now() > until) throw new Error(`only ${ctx.model.held} of ${count} chat streams reached the model`);
    await sleep(20);
  }
}

interface StreamCost {
  rssPerStream: number;
  heapPerStream: number;
  /** The same over the first 500, for comparison. */
  firstRssPerStream: number;
  firstHeapPerStream: number;
  idle?: { seconds: number; writes: number; byMethod: Record<string, number> };
}

async function measure(ctx: CycleContext, mode: 'demo' | 'bare'): Promise<StreamCost> {
  const server = await CycleProcess.start(
    `${mode} streams`,
    mode === 'demo' ? ['demo', 'memory', ctx.model.baseURL] : ['bare', '-', ctx.model.baseURL],
  );
  const streams: Array<ReturnType<typeof openChat>> = [];
  try {
    // Warm, so first-request allocations (code, caches) do not count as per-stream memory.
    await load({ route: one(server.port), concurrency: 10, seconds: 1, maxCycles: 500, prefix: `${mode}-streams-warm` });
    ctx.model.hold(true);
    const open = async (count: number) => {
      for (let i = streams.length; i < count; i++) streams.push(openChat(server.port, `${mode}-open-${i}`));
      await modelHolds(ctx, count);
      await sleep(300);
    };
    const empty = await server.stats(true);
    await open(STREAMS);
    const half = await server.stats(true);
    await open(2 * STREAMS);
    const full = await server.stats(true);
    // The second 500 give the figure: by then the allocator's slack left from the warm-up is used up, which
    // otherwise hides part of the first 500's RSS.
    const cost: StreamCost = {
      rssPerStream: (full.rssBytes - half.rssBytes) / STREAMS,
      heapPerStream: (full.heapUsedBytes - half.heapUsedBytes) / STREAMS,
      firstRssPerStream: (half.rssBytes - empty.rssBytes) / STREAMS,
      firstHeapPerStream: (half.heapUsedBytes - empty.heapUsedBytes) / STREAMS,
    };
    if (mode === 'demo') {
      await open(IDLE_STREAMS);
      const start = await server.stats();
      const t0 = performance.now();
      await sleep(IDLE_SECONDS * 1000);
      const end = await server.stats();
      const byMethod = countsDelta(end.counts, start.counts);
      const { read: _reads = 0, ...writes } = byMethod;
      cost.idle = { seconds: (performance.now() - t0) / 1000, writes: totalOf(writes), byMethod };
    }
    return cost;
  } finally {
    ctx.model.hold(false);
    // Released, the streams end on their own; any left are dropped.
    await Promise.race([Promise.all(streams.map((s) => s.ended)), sleep(20_000)]);
    for (const s of streams) s.abort();
    await server.stop();
  }
}

export async function measureStreams(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  const bare = await measure(ctx, 'bare');
  const demo = await measure(ctx, 'demo');
  out.detail = { streams: STREAMS, bare, demo };
  for (const [what, key] of [
    ['RSS', 'rssPerStream'],
    ['heap', 'heapPerStream'],
  ] as const) {
    out.rows.push({
      group: 'cycle',
      metric: `server ${what} per open chat stream (500 → 1,000 open, memory store)`,
      value: bytes(demo[key]),
      baseline: `${bytes(bare[key])} (bare)`,
      ratio: ratio(demo[key] / bare[key]),
      target: `≤ ${TARGETS.memoryRatio}×`,
      met: demo[key] / bare[key] <= TARGETS.memoryRatio,
      raw: { bytes: demo[key], bareBytes: bare[key] },
    });
  }
  const idle = demo.idle!;
  const perSecond = idle.writes / idle.seconds;
  out.rows.push({
    group: 'cycle',
    metric: `idle store writes/s, ${IDLE_STREAMS.toLocaleString('en-US')} chat streams open ${IDLE_SECONDS} s`,
    value: `${fixed(perSecond, 1)}/s`,
    baseline: '',
    ratio: '',
    target: `≤ ${TARGETS.idleWritesPerSecond}/s`,
    met: perSecond <= TARGETS.idleWritesPerSecond,
    raw: { writesPerSecond: perSecond, readsPerSecond: (idle.byMethod.read ?? 0) / idle.seconds },
  });
  return out;
}
