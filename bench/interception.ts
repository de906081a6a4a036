/**
 * Benchmark 1 — interception latency (not a test). One real SSE response over HTTP on 127.0.0.1, read by
 * the widget's own reader (`readChatEvents` on a fetch Response). Each sample times "the loop hands over a
 * completed `ask_user` tool call" → "the client has parsed `user_input_required`". The baseline, on the
 * same connection and interleaved with it, times a bare `res.write` of a pre-formatted frame of the same
 * size → the same client parse. Run: `node --import tsx bench/interception.ts [--samples N]`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import Koa from 'koa';
import { createAskUserKit, formatEvent, type SseSink } from '../plugin/index.js';
import { newRequestId } from '../plugin/core/request-id.js';
import { userInputRequiredOf } from '../plugin/core/coordinator.js';
import { koaSse } from '../plugin/adapters/koa.js';
import { readChatEvents } from '../widget/sse-reader.js';
import { discardingAudit, QUESTION, QUESTION_ARGUMENTS, settle } from './lib/bench-kit.js';
import { ms, ratio, summarize } from './lib/stats.js';
import { writePart } from './lib/results.js';
import { allowAnyCaller } from '../plugin/core/authorization.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SAMPLES = arg('samples', 2000);
const WARMUP = arg('warmup', 500);
const TARGET = 2;

const started = performance.now();
const kit = createAskUserKit({ authorize: allowAnyCaller, logger: discardingAudit(), heartbeatMs: 0 });
const app = new Koa();
app.silent = true;

let stream: { sink: SseSink; write(chunk: string): void } | undefined;
let streamOpen!: () => void;
const opened = new Promise<void>((resolve) => (streamOpen = resolve));
app.use(async (ctx) => {
  const sink = koaSse(kit, ctx, { heartbeatMs: 0 });
  stream = { sink, write: (chunk) => void ctx.res.write(chunk) };
  streamOpen();
  await new Promise<void>((resolve) => sink.signal.addEventListener('abort', () => resolve(), { once: true }));
});
const server = createServer(app.callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

// Fixed-width ids so every frame, bare or intercepted, has exactly the same size.
const sessionOf = (i: number) => `bench-session-${String(i).padStart(7, '0')}`;
const callOf = (i: number) => `call_${String(i).padStart(7, '0')}`;

/** The bare frame: what interception writes, serialised beforehand, so the write is all that is left. */
function bareFrame(i: number): string {
  const createdAt = Date.now();
  const record = {
    requestId: newRequestId(),
    toolCallId: callOf(i),
    sessionId: sessionOf(i),
    form: QUESTION as never,
    createdAt,
    expiresAt: createdAt + kit.ttlMs,
    status: 'pending' as const,
  };
  return formatEvent('user_input_required', userInputRequiredOf(record));
}

// Client: one reader for the whole run; each parsed event resolves the sample waiting for it.
const response = await fetch(`http://127.0.0.1:${port}/stream`);
let expect: ((at: number) => void) | undefined;
let parsed = 0;
const reading = (async () => {
  for await (const event of readChatEvents(response)) {
    const at = performance.now();
    if (event.event !== 'user_input_required') continue;
    parsed++;
    const done = expect;
    expect = undefined;
    done?.(at);
  }
})();
await opened;
const nextEvent = () => new Promise<number>((resolve) => (expect = resolve));

const total = WARMUP + SAMPLES;
const frames = Array.from({ length: total }, (_, i) => bareFrame(total + i));
const intercepted: number[] = [];
const bare: number[] = [];
const interceptCall: number[] = [];
let frameBytes = { intercepted: 0, bare: Buffer.byteLength(frames[0]!) };

for (let i = 0; i < total; i++) {
  // Alternate which kind goes first, so neither always runs right after the other's garbage.
  const order = i % 2 === 0 ? (['intercept', 'bare'] as const) : (['bare', 'intercept'] as const);
  for (const kind of order) {
    const got = nextEvent();
    const t0 = performance.now();
    if (kind === 'bare') {
      stream!.write(frames[i]!);
      const at = await got;
      if (i >= WARMUP) bare.push(at - t0);
    } else {
      const call = { id: callOf(i), type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } };
      const result = await kit.intercept([call], { sessionId: sessionOf(i), sse: stream!.sink });
      const returned = performance.now();
      const at = await got;
      if (!result.pause) throw new Error(`interception did not pause: ${JSON.stringify(result.errorResults)}`);
      if (i === 0) frameBytes.intercepted = Buffer.byteLength(formatEvent('user_input_required', result.event));
      if (i >= WARMUP) {
        intercepted.push(at - t0);
        interceptCall.push(returned - t0);
      }
    }
  }
}

stream!.sink.end();
await reading;
server.closeAllConnections();
await new Promise<void>((resolve) => server.close(() => resolve()));
await kit.close();
await settle(10);

if (parsed !== total * 2) throw new Error(`client parsed ${parsed} events, expected ${total * 2}`);
const i = summarize(intercepted);
const b = summarize(bare);
const c = summarize(interceptCall);
const p50Ratio = i.p50 / b.p50;
const p99Ratio = i.p99 / b.p99;

console.log(`interception: ${SAMPLES} samples each after ${WARMUP} warm-up, frame ${frameBytes.intercepted} B (bare ${frameBytes.bare} B)`);
console.table({
  'tool call → parsed (intercept)': { p50: ms(i.p50), p99: ms(i.p99), mean: ms(i.mean), max: ms(i.max) },
  'bare SSE write → parsed': { p50: ms(b.p50), p99: ms(b.p99), mean: ms(b.mean), max: ms(b.max) },
  'intercept() call alone': { p50: ms(c.p50), p99: ms(c.p99), mean: ms(c.mean), max: ms(c.max) },
});
console.log(`ratio p50 ${ratio(p50Ratio)} (target ≤ ${TARGET}×), p99 ${ratio(p99Ratio)}`);

writePart({
  name: '1-interception',
  seconds: (performance.now() - started) / 1000,
  rows: [
    {
      group: 'Interception (tool call → `user_input_required` parsed by the widget reader)',
      metric: 'p50',
      value: ms(i.p50),
      baseline: `${ms(b.p50)} bare SSE write → parse`,
      ratio: ratio(p50Ratio),
      target: `≤ ${TARGET}×`,
      met: p50Ratio <= TARGET,
      raw: { interceptP50Ms: i.p50, bareP50Ms: b.p50, ratio: p50Ratio },
    },
    {
      group: 'Interception (tool call → `user_input_required` parsed by the widget reader)',
      metric: 'p99',
      value: ms(i.p99),
      baseline: `${ms(b.p99)} bare SSE write → parse`,
      ratio: ratio(p99Ratio),
      target: '—',
      raw: { interceptP99Ms: i.p99, bareP99Ms: b.p99, ratio: p99Ratio },
    },
  ],
  notes: [
    `${SAMPLES} samples each after ${WARMUP} warm-up, interleaved on one connection; frame ${frameBytes.intercepted} B vs ${frameBytes.bare} B`,
  ],
  detail: { samples: SAMPLES, warmup: WARMUP, frameBytes, intercepted: i, bare: b, interceptCall: c },
});
