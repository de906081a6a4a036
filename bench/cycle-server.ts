/**
 * The server side of the cycle benchmark, in its own process so its CPU is its own. Arguments:
 * `demo <store> <modelBaseURL>` serves the demo app (Koa, persistent host) on a store whose backend calls
 * are counted; `bare - <modelBaseURL>` serves the same two exchanges on node:http with the same `openai`
 * client and no store. `<store>` is `memory`, `sqlite:<file>` (node:sqlite), `redis:<url>`, `postgres:<url>` or
 * `redis-cluster:redis+cluster://<host:port,…>`. After them,
 * `--no-log` serves the demo on the same store with an event log that does nothing (the baseline of what
 * the log costs), `--record-appends` keeps when each logged frame's append started, by frame id, for the
 * parent to ask (`appends`), `--loop-delay` watches the event loop's delay (`loop`), `--approval-tool` gives
 * the loop, besides the demo's tools, one that needs the user's approval (contract §12,
 * lib/approval-kit.ts), and `--count-keys` counts the store's calls by the kind of key too (`keyCounts`).
 * The parent talks over IPC.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { createKeyedStore, createMemoryBackend, type Backend } from '../plugin/store/index.js';
import { frameId } from '../plugin/store/event-log.js';
import { parseStoreUrl } from '../plugin/store/store-url.js';
import type { SseSink } from '../plugin/core/host.js';
import { formatEvent, SSE_HEADERS } from '../plugin/index.js';
import { createDemoApp } from '../demo/app.js';
import { demoTools } from '../demo/tools.js';
import { benchApprovalTool } from './lib/approval-kit.js';
import { discardingAudit, QUESTION } from './lib/bench-kit.js';
import { counting, type Counts } from './lib/counting-backend.js';
import { inProcessModelFetch } from './lib/instant-model.js';
import { withoutLog } from './lib/no-log.js';
import { epochMs } from './lib/stats.js';

export type ToServer =
  | { type: 'stats'; gc?: boolean }
  | { type: 'seed'; prefix: string; from: number; to: number; concurrency: number; deadlineMs: number }
  | { type: 'profile'; action: 'start' }
  | { type: 'profile'; action: 'stop'; file: string }
  | { type: 'appends' }
  | { type: 'loop' };
export type FromServer =
  /** `sweepMs`: how long the startup sweep took (the demo's, over every paused run), `checked` what it checked. */
  | { type: 'ready'; port: number; sweepMs?: number; checked?: number }
  | {
      type: 'stats';
      counts: Counts;
      /** With `--count-keys`, the store's calls again by the kind of key each touched (`swap state:run`, …). */
      keyCounts: Counts;
      logCounts: Counts;
      appendShapes: Counts;
      cpuUs: number;
      rssBytes: number;
      heapUsedBytes: number;
    }
  /** Frame id → when its append started (epochMs), for the frames appended since the last ask. */
  | { type: 'appends'; started: Record<string, number> }
  /** How late the event loop ran its timers since the last ask, ms: the server's own stalls. */
  | { type: 'loop'; p99Ms: number; maxMs: number }
  | { type: 'seeded'; seeded: number; failed: number; seconds: number }
  | { type: 'profiled' };

const [mode = 'demo', storeSpec = 'memory', baseURL = '', ...flags] = process.argv.slice(2);
const MODEL = 'bench-model';
const counts: Counts = {};
const keyCounts: Counts = {};
const logCounts: Counts = {};
/** Appends by the events they carried, e.g. `user_input_required + done`: which frames shared an append. */
const appendShapes: Counts = {};
let appendsStarted: Record<string, number> = {};
const recordAppends = flags.includes('--record-appends');
// Off unless asked: its timer wakes the loop every 10 ms, which the other figures should not pay.
const LOOP_RESOLUTION_MS = 10;
const loopDelay = flags.includes('--loop-delay') ? monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS }) : undefined;
loopDelay?.enable();

async function openBackend(spec: string): Promise<Backend> {
  if (spec === 'memory') return createMemoryBackend();
  if (spec.startsWith('sqlite:')) {
    const { openSqliteBackend } = await import('../plugin/store/sqlite-backend.js');
    return openSqliteBackend(spec.slice('sqlite:'.length), { timeoutMs: 1500 });
  }
  if (spec.startsWith('redis:')) {
    const url = spec.slice('redis:'.length);
    const { openRedisBackend } = await import('../plugin/store/redis-backend.js');
    return openRedisBackend({ url, label: 'bench redis' }, { timeoutMs: 1500 });
  }
  if (spec.startsWith('redis-cluster:')) {
    const target = parseStoreUrl(spec.slice('redis-cluster:'.length));
    if (target.kind !== 'redis-cluster') throw new Error(`not a redis+cluster:// URL: ${spec}`);
    const { openRedisClusterBackend } = await import('../plugin/store/redis-cluster-backend.js');
    // Writes wait for one replica, as openStore's default clusterWaitReplicas has them.
    return openRedisClusterBackend(target, { timeoutMs: 1500, waitReplicas: 1 });
  }
  if (spec.startsWith('postgres:')) {
    const url = spec.slice('postgres:'.length);
    const { openPostgresBackend } = await import('../plugin/store/postgres-backend.js');
    // The pool's size and the namespace as openStore gives them by default.
    return openPostgresBackend({ url, label: 'bench postgres' }, { timeoutMs: 1500 });
  }
  throw new Error(`unknown store ${spec}`);
}

/** A chat stream nobody reads: seeding needs the run to pause, not its bytes. */
function discardingSink(): SseSink {
  const controller = new AbortController();
  let closed = false;
  return {
    send: () => {},
    comment: () => {},
    signal: controller.signal,
    get closed() {
      return closed;
    },
    end() {
      closed = true;
      controller.abort();
    },
  };
}

// A failing request must not go unnoticed, nor flood the parent's terminal.
let errorsLogged = 0;
// Work still in flight when the parent stops the server fails on the closed store; that is not a finding.
let stopping = false;
const onError = (err: unknown) => {
  if (!stopping && errorsLogged++ < 5) console.error(`[cycle-server ${mode}]`, err instanceof Error ? err.message : err);
};

interface Served {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  seed?: (sessionId: string) => Promise<void>;
  startupSweep?: () => Promise<number>;
  close(): Promise<void>;
}

/**
 * The seeder's caller as the demo's `authorize` reads it on Koa: a context whose cookies hold no owner yet,
 * so it gets one browser token that then owns every session it seeds.
 */
const SEEDER = { cookies: { get: () => undefined, set: () => undefined }, secure: false };

async function demoServer(): Promise<Served> {
  const { backend } = counting(
    await openBackend(storeSpec),
    counts,
    {
      counts: logCounts,
      onAppend: (frames) => {
        const shape = frames.map((frame) => frame.event).join(' + ');
        appendShapes[shape] = (appendShapes[shape] ?? 0) + 1;
        if (!recordAppends) return;
        const at = epochMs();
        for (const frame of frames) appendsStarted[frameId(frame)] = at;
      },
    },
    flags.includes('--count-keys') ? keyCounts : undefined,
  );
  const keyed = createKeyedStore(backend);
  const store = flags.includes('--no-log') ? withoutLog(keyed) : keyed;
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const tools = flags.includes('--approval-tool') ? { tools: [...demoTools, benchApprovalTool] } : {};
  const options = { store, model: MODEL, audit: discardingAudit(), server: 'koa', locale: 'en', onError, ...tools } as const;
  const demo = await createDemoApp({ ...options, client });
  // Seeding runs the same loop code on the same store, with a model answered in-process so it goes fast.
  const seeder = await createDemoApp({
    ...options,
    client: new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0, fetch: inProcessModelFetch }),
  });
  return {
    // demo/server.ts sweeps in the background once it listens; the parent measures after that sweep.
    startupSweep: () => demo.loop.sweep().then((report) => report.checked),
    listener: demo.listener,
    seed: (sessionId) => seeder.loop.chat({ caller: SEEDER, sessionId, message: 'Migrate the schema.', sse: discardingSink() }),
    async close() {
      await seeder.close();
      await demo.close();
      await store.close();
    },
  };
}

const ASK_USER_TOOL: ChatCompletionTool = {
  type: 'function',
  function: { name: 'ask_user', description: 'Ask the user one question.', parameters: { type: 'object', properties: {} } },
};

/** Every server has to remember the paused history somewhere; the bare one keeps it in a Map. */
function bareServer(): Served {
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const paused = new Map<string, { messages: ChatCompletionMessageParam[]; requestId: string; toolCallId: string }>();

  async function modelRound(messages: ChatCompletionMessageParam[], res: ServerResponse) {
    const stream = await client.chat.completions.create({ model: MODEL, messages, tools: [ASK_USER_TOOL], stream: true });
    let text = '';
    let call: { id: string; arguments: string } | undefined;
    for await (const part of stream) {
      const delta = part.choices[0]?.delta;
      if (delta?.content) {
        text += delta.content;
        res.write(formatEvent('message_delta', { text: delta.content }));
      }
      for (const c of delta?.tool_calls ?? []) {
        call ??= { id: c.id ?? '', arguments: '' };
        call.arguments += c.function?.arguments ?? '';
      }
    }
    return { text, call };
  }

  async function chat(body: { sessionId: string; message: string }, res: ServerResponse) {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a helpful engineering assistant.' },
      { role: 'user', content: body.message },
    ];
    const { text, call } = await modelRound(messages, res);
    if (!call) return void res.end(formatEvent('done', { reason: 'completed' }));
    const requestId = `ask_${randomBytes(16).toString('base64url')}`;
    messages.push({
      role: 'assistant',
      content: text,
      tool_calls: [{ id: call.id, type: 'function', function: { name: 'ask_user', arguments: call.arguments } }],
    });
    paused.set(body.sessionId, { messages, requestId, toolCallId: call.id });
    const form = JSON.parse(call.arguments) as typeof QUESTION;
    const expiresAt = new Date(Date.now() + 30 * 60_000).toISOString();
    res.write(
      formatEvent('user_input_required', {
        ...form,
        options: [...form.options],
        id: requestId,
        toolCallId: call.id,
        sessionId: body.sessionId,
        expiresAt,
        resumable: true,
      }),
    );
    res.end(formatEvent('done', { reason: 'paused' }));
  }

  async function resume(body: { sessionId: string; requestId: string; selections: string[]; customInput: string }, res: ServerResponse) {
    const run = paused.get(body.sessionId);
    if (!run || run.requestId !== body.requestId) return void res.end(formatEvent('done', { reason: 'error' }));
    paused.delete(body.sessionId);
    const content = JSON.stringify({ selections: body.selections, customInput: body.customInput, cancelled: false });
    const at = new Date().toISOString();
    res.write(
      formatEvent('interaction_resolved', {
        requestId: body.requestId,
        toolCallId: run.toolCallId,
        status: 'answered',
        at,
        selections: body.selections,
        customInputLength: 0,
      }),
    );
    res.write(formatEvent('tool_result', { toolCallId: run.toolCallId, name: 'ask_user', content, isError: false }));
    await modelRound([...run.messages, { role: 'tool', tool_call_id: run.toolCallId, content }], res);
    res.end(formatEvent('done', { reason: 'completed' }));
  }

  return {
    listener(req, res) {
      const parts: Buffer[] = [];
      req.on('data', (p: Buffer) => parts.push(p));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
        res.writeHead(200, SSE_HEADERS);
        const work = req.url === '/api/chat' ? chat(body, res) : resume(body, res);
        work.catch((err: unknown) => {
          onError(err);
          res.end();
        });
      });
    },
    close: async () => {},
  };
}

const served = mode === 'bare' ? bareServer() : await demoServer();
const server = createServer(served.listener);
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const sweepStarted = performance.now();
const checked = await served.startupSweep?.().catch(onError);
const sweepMs = served.startupSweep ? performance.now() - sweepStarted : undefined;

async function seed(m: Extract<ToServer, { type: 'seed' }>) {
  const started = performance.now();
  let next = m.from;
  let seeded = 0;
  let failed = 0;
  const worker = async () => {
    while (next < m.to && performance.now() - started < m.deadlineMs) {
      const n = next++;
      try {
        await served.seed!(`${m.prefix}-${n}`);
        seeded++;
      } catch (err) {
        failed++;
        onError(err);
      }
    }
  };
  await Promise.all(Array.from({ length: m.concurrency }, worker));
  return { seeded, failed, seconds: (performance.now() - started) / 1000 };
}

let inspector: Session | undefined;
const send = (m: FromServer) => process.send!(m);
process.on('message', async (m: ToServer) => {
  if (m.type === 'stats') {
    if (m.gc) for (let i = 0; i < 3; i++) globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    const cpu = process.cpuUsage();
    send({
      type: 'stats',
      counts: { ...counts },
      keyCounts: { ...keyCounts },
      logCounts: { ...logCounts },
      appendShapes: { ...appendShapes },
      cpuUs: cpu.user + cpu.system,
      rssBytes: rss,
      heapUsedBytes: heapUsed,
    });
  } else if (m.type === 'appends') {
    send({ type: 'appends', started: appendsStarted });
    appendsStarted = {};
  } else if (m.type === 'loop') {
    // The histogram holds whole timer intervals in ns: lateness is what exceeds the interval.
    const late = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    send({ type: 'loop', p99Ms: late(loopDelay?.percentile(99) ?? 0), maxMs: late(loopDelay?.max ?? 0) });
    loopDelay?.reset();
  } else if (m.type === 'seed') {
    send({ type: 'seeded', ...(await seed(m)) });
  } else if (m.action === 'start') {
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
    await inspector.post('Profiler.start');
    send({ type: 'profiled' });
  } else {
    const { profile } = await inspector!.post('Profiler.stop');
    writeFileSync(m.file, JSON.stringify(profile));
    inspector!.disconnect();
    send({ type: 'profiled' });
  }
});
process.on('disconnect', () => {
  stopping = true;
  server.closeAllConnections();
  server.close();
  void served.close().then(() => process.exit(0));
});
send({
  type: 'ready',
  port: (server.address() as AddressInfo).port,
  ...(sweepMs !== undefined ? { sweepMs } : {}),
  ...(typeof checked === 'number' ? { checked } : {}),
});
