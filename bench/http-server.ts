/**
 * The server side of benchmark 2, run as a child process by bench/http-routes.ts so the load generator
 * and the server do not share one event loop. One Koa app on 127.0.0.1 with:
 *   - the kit's routes (memory store, instant host, audit lines formatted then dropped);
 *   - `GET /bare/json`: a bare Koa JSON route answering the same body the pending route answers;
 *   - `POST /bare/sse`: a bare Koa route reading the same JSON body and writing three pre-formatted SSE
 *     frames, the shape of a continue answer without any plugin work.
 * The parent asks over IPC for questions to be put in the store (`prepare`) and for counters (`stats`).
 */
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Router } from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { createAskUserKit, formatEvent, SSE_HEADERS, userInputRequiredOf, type AskUserKit } from '../plugin/index.js';
import { discardingAudit, instantHost, QUESTION_ARGUMENTS } from './lib/bench-kit.js';

export type ParentMessage =
  | { type: 'prepare'; prefix: string; count: number }
  | { type: 'stats' }
  /** Start, or stop and write to `file`, a V8 CPU profile of this process. */
  | { type: 'profile'; action: 'start' } | { type: 'profile'; action: 'stop'; file: string };
export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'prepared'; prefix: string; requestIds: string[] }
  | { type: 'stats'; resumed: number; rssBytes: number; heapUsedBytes: number }
  | { type: 'profiled'; action: 'start' | 'stop' };

let resumed = 0;
const base = instantHost(() => kit.store);
const kit: AskUserKit = createAskUserKit({
  logger: discardingAudit(),
  host: { ...base, resume: async (ctx) => void (await base.resume(ctx), resumed++) },
});

const sample = await ask('sample', 0);
const PENDING_BODY = { pending: { ...userInputRequiredOf(sample), status: 'pending', resumable: true } };
const SSE_FRAMES =
  formatEvent('interaction_resolved', { requestId: sample.requestId, toolCallId: sample.toolCallId, status: 'answered', at: new Date().toISOString(), selections: ['safe'], customInputLength: 0 }) +
  formatEvent('tool_result', { toolCallId: sample.toolCallId, name: 'ask_user', content: '{"selections":["safe"],"customInput":"","cancelled":false}', isError: false }) +
  formatEvent('done', { reason: 'completed' });

const bare = new Router({ prefix: '/bare' });
bare.get('/json', function bareJson(ctx) {
  ctx.body = PENDING_BODY;
});
bare.post('/sse', bodyParser({ enableTypes: ['json'] }), function bareSse(ctx) {
  if (typeof (ctx.request.body as { requestId?: unknown } | undefined)?.requestId !== 'string') ctx.throw(400);
  ctx.respond = false;
  ctx.res.writeHead(200, SSE_HEADERS);
  ctx.res.end(SSE_FRAMES);
});

const app = new Koa();
app.silent = true;
app.use(bare.routes());
app.use(kit.routes());
const server = createServer(app.callback());
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

async function ask(prefix: string, n: number) {
  const call = { id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } };
  const result = await kit.intercept([call], { sessionId: `${prefix}-${n}` });
  if (!result.interaction) throw new Error(`prepare failed: ${JSON.stringify(result.errorResults)}`);
  return result.interaction;
}

let inspector: Session | undefined;
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
    send({ type: 'stats', resumed, rssBytes: rss, heapUsedBytes: heapUsed });
  }
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
  void kit.close().then(() => process.exit(0));
});
send({ type: 'ready', port: (server.address() as AddressInfo).port });
