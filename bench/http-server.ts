/**
 * The server side of benchmark 2, run as a child process by bench/http-routes.ts so the load generator
 * and the server do not share one event loop. One app of the framework named by the first argument
 * (`koa`, `express` or `hono` on @hono/node-server) on 127.0.0.1, with:
 *   - the kit's routes through that framework's adapter (memory store, instant host, audit lines
 *     formatted then dropped);
 *   - `GET /bare/json`: a bare route of the same framework answering the same body the pending route answers;
 *   - `POST /bare/sse`: a bare route of the same framework parsing the same JSON body with the framework's
 *     usual JSON parser and answering three pre-formatted SSE frames in one write, the shape of a continue
 *     answer without any plugin work;
 *   - `POST /bare/sse-split`: the same, headers flushed first and one write per frame.
 * The parent asks over IPC for questions to be put in the store (`prepare`) and for counters (`stats`).
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Router } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import express from 'express';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { allowAnyCaller, createAskUserKit, formatEvent, SSE_HEADERS, type AskUserKit } from '../plugin/index.js';
import { userInputRequiredOf } from '../plugin/core/coordinator.js';
import { discardingAudit, instantHost, QUESTION_ARGUMENTS } from './lib/bench-kit.js';
import { koaRoutes } from '../plugin/adapters/koa.js';
import { expressRoutes } from '../plugin/adapters/express.js';
import { honoRoutes } from '../plugin/adapters/hono.js';
import { FRAMEWORKS, type Framework } from './lib/frameworks.js';

export type ParentMessage =
  | { type: 'prepare'; prefix: string; count: number }
  | { type: 'stats' }
  /** Start, or stop and write to `file`, a V8 CPU profile of this process. */
  | { type: 'profile'; action: 'start' }
  | { type: 'profile'; action: 'stop'; file: string };
export type ChildMessage =
  | { type: 'ready'; port: number; framework: Framework }
  | { type: 'prepared'; prefix: string; requestIds: string[] }
  | {
      type: 'stats';
      resumed: number;
      rssBytes: number;
      heapUsedBytes: number;
      stalls: Array<{ atMs: number; ms: number }>;
      longGcs: Array<{ atMs: number; ms: number; kind: number }>;
    }
  | { type: 'profiled'; action: 'start' | 'stop' };

const framework = (process.argv[2] ?? 'koa') as Framework;
if (!FRAMEWORKS.includes(framework)) throw new Error(`unknown framework ${framework}; use one of ${FRAMEWORKS.join(', ')}`);

let resumed = 0;
const base = instantHost(() => kit.store);
const kit: AskUserKit = createAskUserKit({
  authorize: allowAnyCaller,
  logger: discardingAudit(),
  host: { ...base, resume: async (ctx) => void (await base.resume(ctx), resumed++) },
});

const sample = await ask('sample', 0);
const PENDING_BODY = { pending: { ...userInputRequiredOf(sample), status: 'pending', resumable: true } };
const SSE_FRAME_LIST = [
  formatEvent('interaction_resolved', {
    requestId: sample.requestId,
    toolCallId: sample.toolCallId,
    status: 'answered',
    at: new Date().toISOString(),
    selections: ['safe'],
    customInputLength: 0,
  }),
  formatEvent('tool_result', {
    toolCallId: sample.toolCallId,
    name: 'ask_user',
    content: '{"selections":["safe"],"customInput":"","cancelled":false}',
    isError: false,
  }),
  formatEvent('done', { reason: 'completed' }),
];
const SSE_FRAMES = SSE_FRAME_LIST.join('');
/** The bare POSTs check what the route checks first, so a body that did not parse is not answered 200. */
const wellFormed = (body: unknown) => typeof (body as { requestId?: unknown } | undefined)?.requestId === 'string';

/** Node response, one write: what the bare Koa and Express POSTs answer. */
function sseOneWrite(res: ServerResponse) {
  res.writeHead(200, SSE_HEADERS);
  res.end(SSE_FRAMES);
}
/** Node response, the way a stream that does not know its end writes: headers flushed, one write per event. */
function sseSplit(req: IncomingMessage, res: ServerResponse) {
  for (const [name, value] of Object.entries(SSE_HEADERS)) res.setHeader(name, value);
  res.writeHead(200);
  res.flushHeaders();
  req.socket.setNoDelay(true);
  for (const frame of SSE_FRAME_LIST) res.write(frame);
  res.end();
}

function koaApp(): RequestListener {
  const bare = new Router({ prefix: '/bare' });
  bare.get('/json', function bareJson(ctx) {
    ctx.body = PENDING_BODY;
  });
  bare.post('/sse-split', bodyParser({ enableTypes: ['json'] }), function bareSseSplit(ctx) {
    if (!wellFormed(ctx.request.body)) ctx.throw(400);
    ctx.respond = false;
    sseSplit(ctx.req, ctx.res);
  });
  bare.post('/sse', bodyParser({ enableTypes: ['json'] }), function bareSse(ctx) {
    if (!wellFormed(ctx.request.body)) ctx.throw(400);
    ctx.respond = false;
    sseOneWrite(ctx.res);
  });
  const app = new Koa();
  app.silent = true;
  app.use(bare.routes());
  app.use(koaRoutes(kit));
  return app.callback();
}

function expressApp(): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  app.get('/bare/json', function bareJson(_req, res) {
    res.json(PENDING_BODY);
  });
  app.post('/bare/sse-split', express.json(), function bareSseSplit(req, res) {
    if (!wellFormed(req.body)) return void res.sendStatus(400);
    sseSplit(req, res);
  });
  app.post('/bare/sse', express.json(), function bareSse(req, res) {
    if (!wellFormed(req.body)) return void res.sendStatus(400);
    sseOneWrite(res);
  });
  app.use(expressRoutes(kit));
  return app as unknown as RequestListener;
}

function honoApp(): RequestListener {
  const app = new Hono();
  const frames = SSE_FRAME_LIST.map((f) => new TextEncoder().encode(f));
  app.get('/bare/json', function bareJson(c) {
    return c.json(PENDING_BODY);
  });
  /** A web stream enqueuing one chunk per event, as a stream that does not know its end does. */
  app.post('/bare/sse-split', async function bareSseSplit(c) {
    if (!wellFormed(await c.req.json().catch(() => undefined))) return c.body(null, 400);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const frame of frames) controller.enqueue(frame);
        controller.close();
      },
    });
    return new Response(body, { headers: SSE_HEADERS });
  });
  app.post('/bare/sse', async function bareSse(c) {
    if (!wellFormed(await c.req.json().catch(() => undefined))) return c.body(null, 400);
    return new Response(SSE_FRAMES, { headers: SSE_HEADERS });
  });
  app.use(honoRoutes(kit));
  return getRequestListener(app.fetch);
}

const listener = framework === 'koa' ? koaApp() : framework === 'express' ? expressApp() : honoApp();
const server = createServer(listener);
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

async function ask(prefix: string, n: number) {
  const call = { id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } };
  const result = await kit.intercept([call], { sessionId: `${prefix}-${n}` });
  if (!result.interaction) throw new Error(`prepare failed: ${JSON.stringify(result.errorResults)}`);
  return result.interaction;
}

let inspector: Session | undefined;
// Long event-loop stalls (a sweep over every row, a major GC) are what a p99 of a second is made of.
const stalls: Array<{ atMs: number; ms: number }> = [];
const bootedAt = performance.now();
let tick = performance.now();
/** Garbage collections that paused the loop for more than 20 ms. */
const longGcs: Array<{ atMs: number; ms: number; kind: number }> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.duration > 20)
      longGcs.push({
        atMs: Math.round(e.startTime - bootedAt),
        ms: Math.round(e.duration),
        kind: (e as { detail?: { kind?: number } }).detail?.kind ?? 0,
      });
  }
}).observe({ entryTypes: ['gc'] });
setInterval(() => {
  const now = performance.now();
  if (now - tick > 60) stalls.push({ atMs: Math.round(now - bootedAt), ms: Math.round(now - tick - 10) });
  tick = now;
}, 10).unref();
const send = (message: ChildMessage) => process.send!(message);
process.on('message', async (message: ParentMessage) => {
  if (message.type === 'prepare') {
    const requestIds: string[] = [];
    for (let n = 0; n < message.count; n++) requestIds.push((await ask(message.prefix, n)).requestId);
    send({ type: 'prepared', prefix: message.prefix, requestIds });
  } else if (message.type === 'profile') {
    inspector ??= new Session();
    if (message.action === 'start') {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
      await inspector.post('Profiler.start');
    } else {
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(message.file, JSON.stringify(profile));
      inspector.disconnect();
    }
    send({ type: 'profiled', action: message.action });
  } else if (message.type === 'stats') {
    const { rss, heapUsed } = process.memoryUsage();
    send({ type: 'stats', resumed, rssBytes: rss, heapUsedBytes: heapUsed, stalls, longGcs });
  }
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
  void kit.close().then(() => process.exit(0));
});
send({ type: 'ready', port: (server.address() as AddressInfo).port, framework });
