/**
 * Test harness for the plugin's routes: a real Koa app on 127.0.0.1, raw SSE bytes parsed here (not by
 * the code under test), a recording RunHost, and helpers to put a question in the store through the
 * coordinator exactly as a loop would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type ParameterizedContext } from 'koa';
import {
  allowAnyCaller,
  createAskUserKit,
  memoryAuditLogger,
  openStore,
  type AskUserKit,
  type AskUserKitOptions,
  type ClosedContext,
  type PendingStore,
  type ResumeContext,
  type RunHost,
} from '../../plugin/index.js';
import { koaRoutes } from '../../plugin/adapters/koa.js';

export interface SseFrame {
  event: string;
  data: unknown;
  raw: string;
  /** The frame's `id:` (contract §11: `<runId>.<seq>`), when it has one. */
  id?: string;
}

export interface ParsedStream {
  frames: SseFrame[];
  comments: string[];
  text: string;
  /** The `retry:` value the stream sent, if any. */
  retry?: number;
}

/** Minimal SSE parse per the WHATWG rules we rely on: blank line ends an event, `:` starts a comment. */
export function parseSse(text: string): ParsedStream {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  let retry: number | undefined;
  for (const block of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    if (block.trim() === '') continue;
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('id:')) id = line.slice(3).replace(/^ /, '');
      else if (line.startsWith('retry:')) retry = Number(line.slice(6).trim());
      else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
    }
    if (data.length > 0) frames.push({ event, data: JSON.parse(data.join('\n')), raw: block, ...(id === undefined ? {} : { id }) });
  }
  return { frames, comments, text, ...(retry === undefined ? {} : { retry }) };
}

export async function readSse(res: Response): Promise<ParsedStream> {
  return parseSse(await res.text());
}

export interface RecordingHost extends RunHost {
  resumable: boolean;
  resumed: ResumeContext[];
  closedCalls: ClosedContext[];
}

/** A loop stand-in: resume writes tool_result, one model delta and done, as the real loop would. */
export function recordingHost(store: () => PendingStore, resumable = true): RecordingHost {
  const host: RecordingHost = {
    resumable,
    resumed: [],
    closedCalls: [],
    async isResumable() {
      return host.resumable;
    },
    async resume(ctx) {
      host.resumed.push(ctx);
      await store().markToolResultWritten(ctx.record.requestId);
      ctx.sse.send('tool_result', { toolCallId: ctx.record.toolCallId, name: 'ask_user', content: ctx.toolResultContent, isError: false });
      if (ctx.answer.cancelled) return ctx.sse.send('done', { reason: 'cancelled' });
      ctx.sse.send('message_delta', { text: 'continuing' });
      ctx.sse.send('done', { reason: 'completed' });
    },
    async closed(ctx) {
      host.closedCalls.push(ctx);
    },
  };
  return host;
}

export interface TestApp {
  url: string;
  kit: AskUserKit<ParameterizedContext>;
  store: PendingStore;
  host: RecordingHost | undefined;
  audit: ReturnType<typeof memoryAuditLogger>;
  clock: { now: number };
  app: Koa;
  server: Server;
  close(): Promise<void>;
  continueUrl: string;
  pendingUrl(sessionId: string): string;
  post(body: unknown, init?: RequestInit): Promise<Response>;
  /** Ask a question in `sessionId` through the kit's coordinator; returns the stored record. */
  ask(sessionId: string, args?: Record<string, unknown>, toolCallId?: string): Promise<import('../../plugin/index.js').InteractionRecord>;
}

export interface StoreCase {
  name: string;
  open(now: () => number): Promise<PendingStore>;
  /** For backends several processes can share: a case whose stores all see the same data. */
  shared?(): StoreCase;
}

export const memoryCase: StoreCase = { name: 'memory', open: (now) => openStore('memory', { now }) };

export const SINGLE = {
  title: 'Pick a strategy',
  mode: 'single',
  options: [
    { id: 'safe', label: 'Analyse first', recommended: true },
    { id: 'implement', label: 'Implement' },
  ],
} as const;

export interface StartOptions extends Omit<AskUserKitOptions<ParameterizedContext>, 'store' | 'now' | 'logger' | 'authorize'> {
  /** @default allowAnyCaller */
  authorize?: AskUserKitOptions<ParameterizedContext>['authorize'];
  storeCase?: StoreCase;
  /** Use the recording host (default) or the kit's in-process host. */
  inProcess?: boolean;
  resumable?: boolean;
  /** Extra middleware mounted before the kit's routes. */
  before?: Koa.Middleware[];
  /** Wrap the opened store (spies, fault injection); the kit gets the wrapper. */
  wrapStore?: (store: PendingStore) => PendingStore;
}

/**
 * A store whose every method first passes `hook(method)`; a hook that throws makes the call reject
 * with that error, as a real backend failure would.
 */
export function hookedStore(inner: PendingStore, hook: (method: string) => void): PendingStore {
  return new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof p !== 'string' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        hook(p);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const { storeCase = memoryCase, inProcess = false, resumable = true, before = [], wrapStore, ...kitOptions } = options;
  const clock = { now: Date.parse('2030-01-01T00:00:00.000Z') };
  const now = () => clock.now;
  const opened = await storeCase.open(now);
  const store = wrapStore ? wrapStore(opened) : opened;
  const audit = memoryAuditLogger();
  const host = inProcess ? undefined : recordingHost(() => store, resumable);
  const kit = createAskUserKit({
    expiryTimers: false,
    ...kitOptions,
    authorize: kitOptions.authorize ?? allowAnyCaller,
    store,
    now,
    logger: audit,
    ...(host ? { host } : {}),
  });
  const app = new Koa();
  app.silent = true;
  for (const mw of before) app.use(mw);
  app.use(koaRoutes(kit));
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const prefix = kit.prefix;
  let n = 0;
  const test: TestApp = {
    url,
    kit,
    store,
    host,
    audit,
    clock,
    app,
    server,
    continueUrl: `${url}${prefix}/chat/continue`,
    pendingUrl: (sessionId) => `${url}${prefix}/interactions/pending?sessionId=${encodeURIComponent(sessionId)}`,
    post: (body, init = {}) =>
      fetch(test.continueUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...init,
      }),
    async ask(sessionId, args = SINGLE, toolCallId = `call_${++n}`) {
      const result = await kit.intercept(
        [{ id: toolCallId, type: 'function', function: { name: 'ask_user', arguments: JSON.stringify(args) } }],
        { sessionId },
      );
      if (!result.interaction) throw new Error(`ask failed: ${JSON.stringify(result.errorResults)}`);
      return result.interaction;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kit.close();
      await opened.close();
    },
  };
  return test;
}

export const answer = (sessionId: string, requestId: string, over: Record<string, unknown> = {}) => ({
  sessionId,
  requestId,
  selections: ['safe'],
  customInput: '',
  cancelled: false,
  ...over,
});

export async function errorOf(res: Response): Promise<{ status: number; code: string; body: any }> {
  const body = (await res.json()) as any;
  return { status: res.status, code: body?.error?.code, body };
}
