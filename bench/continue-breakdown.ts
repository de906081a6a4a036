/**
 * Where the continue route's own time goes (not a test, not part of the summary table): each step that
 * `POST {prefix}/chat/continue` takes, timed alone in a tight loop on the memory store, next to the whole
 * route called without HTTP (a RouteRequest over a ready body, an SSE sink over a transport that drops
 * its text) and the instant host. What HTTP adds on top is what bench/http-routes.ts measures.
 * Run: `node bench/results/build/bench/continue-breakdown.js [--rounds N]` after `npx tsc -p bench/tsconfig.json`,
 * or `node --import tsx bench/continue-breakdown.ts`.
 */
import { performance } from 'node:perf_hooks';
import {
  checkContinue,
  continueBodySchema,
  createAskUserKit,
  formatEvent,
  type AskUserKit,
  type InteractionRecord,
} from '../plugin/index.js';
import { recordEntry } from '../plugin/core/audit.js';
import { answerToolResultText } from '../plugin/contract/tool-result.js';
import { frameSink } from '../plugin/core/sse-format.js';
import type { RouteRequest } from '../plugin/core/routes.js';
import { allowAnyCaller } from '../plugin/core/authorization.js';
import { discardingAudit, instantHost, QUESTION_ARGUMENTS } from './lib/bench-kit.js';

const i = process.argv.indexOf('--rounds');
const ROUNDS = i > 0 ? Number(process.argv[i + 1]) : 20_000;

const rows: Record<string, { 'µs/call': string }> = {};
const row = (name: string, us: number) => (rows[name] = { 'µs/call': us.toFixed(2) });

/** Mean µs per call of `fn(n)` over `count` calls, n from 0. */
async function time(count: number, fn: (n: number) => unknown): Promise<number> {
  const t0 = performance.now();
  for (let n = 0; n < count; n++) await fn(n);
  return ((performance.now() - t0) * 1000) / count;
}
/** Warm up on throw-away inputs, then time. */
async function timed(fn: (n: number) => unknown, warm: (n: number) => unknown = fn): Promise<number> {
  await time(Math.floor(ROUNDS / 4), warm);
  return time(ROUNDS, fn);
}

function newKit(): AskUserKit {
  const base = instantHost(() => kit.store);
  const kit: AskUserKit = createAskUserKit({ authorize: allowAnyCaller, logger: discardingAudit(), heartbeatMs: 0, host: base });
  return kit;
}

/** `count` pending questions in `kit`, sessions `${prefix}-n`. */
async function ask(kit: AskUserKit, prefix: string, count: number): Promise<InteractionRecord[]> {
  const out: InteractionRecord[] = [];
  for (let n = 0; n < count; n++) {
    const call = { id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } };
    const result = await kit.intercept([call], { sessionId: `${prefix}-${n}` });
    if (!result.interaction) throw new Error('prepare failed');
    out.push((await kit.store.get(result.interaction.requestId))!);
  }
  return out;
}

const body = (r: InteractionRecord) =>
  JSON.stringify({ sessionId: r.sessionId, requestId: r.requestId, selections: ['safe'], customInput: '', cancelled: false });

const kit = newKit();
const warm = await ask(kit, 'warm', Math.floor(ROUNDS / 4));
const main = await ask(kit, 'main', ROUNDS);
const sample = main[0]!;
const text = body(sample);
const parsedBody = continueBodySchema.parse(JSON.parse(text));
const answer = { selections: ['safe'], customInput: '', cancelled: false };
const audit = discardingAudit();

row('JSON.parse(body)', await timed(() => JSON.parse(text)));
row('zod continueBodySchema.safeParse', await timed(() => continueBodySchema.safeParse(JSON.parse(text))));
row('checkContinue (answer fits the form)', await timed(() => checkContinue(sample.form, parsedBody)));
row('store.get (memory: read + JSON decode of the record)', await timed((n) => kit.store.get(main[n]!.requestId)));
row('audit recordEntry + JSON line', await timed(() => audit.audit(recordEntry('answered', sample, Date.now(), { answer }))));
row('answerToolResultText', await timed(() => answerToolResultText(answer)));
row(
  'formatEvent × 3 (the three frames)',
  await timed(() => {
    formatEvent('interaction_resolved', {
      requestId: sample.requestId,
      toolCallId: sample.toolCallId,
      status: 'answered',
      at: new Date().toISOString(),
      selections: ['safe'],
      customInputLength: 0,
    });
    formatEvent('tool_result', { toolCallId: sample.toolCallId, name: 'ask_user', content: answerToolResultText(answer), isError: false });
    formatEvent('done', { reason: 'completed' });
  }),
);
row(
  'frameSink open + 3 sends + end (transport dropped)',
  await timed(() => {
    const sink = frameSink({ open: true, write() {}, end() {} }, { heartbeatMs: 0 });
    sink.send('interaction_resolved', {
      requestId: sample.requestId,
      toolCallId: sample.toolCallId,
      status: 'answered',
      at: new Date().toISOString(),
      selections: ['safe'],
      customInputLength: 0,
    });
    sink.send('tool_result', { toolCallId: sample.toolCallId, name: 'ask_user', content: '{}', isError: false });
    sink.send('done', { reason: 'completed' });
  }),
);
row(
  'store.claim (memory: read, decode, encode, swap)',
  await timed(
    (n) => kit.store.claim(main[n]!.requestId, { status: 'answered', at: Date.now(), answer }),
    (n) => kit.store.claim(warm[n]!.requestId, { status: 'answered', at: Date.now(), answer }),
  ),
);
row(
  'store.markToolResultWritten (read, decode, encode, swap)',
  await timed(
    (n) => kit.store.markToolResultWritten(main[n]!.requestId),
    (n) => kit.store.markToolResultWritten(warm[n]!.requestId),
  ),
);

// The whole route without HTTP, on fresh questions.
const routeKit = newKit();
const routeWarm = await ask(routeKit, 'rw', Math.floor(ROUNDS / 4));
const routeMain = await ask(routeKit, 'rm', ROUNDS);
const serve = routeKit.serveRoutes();
const request = (r: InteractionRecord): RouteRequest => {
  const text = body(r);
  return {
    method: 'POST',
    path: '/api/chat/continue',
    query: () => undefined,
    header: () => undefined,
    ownOrigin: 'http://127.0.0.1',
    readJson: async () => JSON.parse(text),
  };
};
const openSse = () => frameSink({ open: true, write() {}, end() {} }, { heartbeatMs: 0 });
const route = async (r: InteractionRecord) => {
  const result = await serve(request(r), undefined, openSse);
  if (result !== 'streamed') throw new Error(`continue refused: ${JSON.stringify(result)}`);
};
row(
  'whole route, no HTTP (instant host)',
  await timed(
    (n) => route(routeMain[n]!),
    (n) => route(routeWarm[n]!),
  ),
);

await kit.close();
await routeKit.close();
console.log(`continue breakdown, mean of ${ROUNDS} calls each (memory store, Node ${process.version}):`);
console.table(rows);
