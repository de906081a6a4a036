/**
 * The conformance suite's own fixture, independent of the framework under test and of the older route
 * tests' harness: raw HTTP over loopback with node:http (fetch drops an Origin header set by hand), an SSE
 * parser that trusts nothing it reads, a recording RunHost, a store the suite can break, a movable clock,
 * and an audit sink. Everything here speaks only HTTP to the host under test.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import assert from 'node:assert/strict';
import {
  memoryAuditLogger,
  openStore,
  StoreUnavailableError,
  type InteractionRecord,
  type PendingStore,
  type ResumeContext,
  type ClosedContext,
  type RunHost,
} from '../../../plugin/index.js';
import type { HostStartOptions, HostUnderTest, KitUnderTestOptions, StartedHost } from './host.js';

/** Sent in customInput, selections and malformed ids; must never come back in an error body or audit entry. */
export const CANARY = 'zq-canary-7f3a9c';

export const T0 = Date.parse('2030-01-01T00:00:00.000Z');
export const TTL_MS = 30 * 60 * 1000;
export const RETENTION_MS = 24 * 3600 * 1000;
export const BODY_LIMIT = 64 * 1024;
export const iso = (ms: number) => new Date(ms).toISOString();

// ---------------------------------------------------------------------------------------------- HTTP

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with chunked transfer encoding (no Content-Length). */
  chunked?: boolean;
}

/** Open a request and resolve with the response head; the body is the caller's to read. */
export function open(url: string, options: RequestOptions = {}): Promise<IncomingMessage> {
  const { method = 'GET', headers = {}, body, chunked = false } = options;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers }, agent: false }, resolve);
    req.on('error', reject);
    if (body !== undefined && !chunked) req.setHeader('content-length', Buffer.byteLength(body));
    if (body !== undefined) {
      const buf = Buffer.from(body);
      if (chunked) {
        // Several chunks, so a limit has to be enforced on the stream, not on one declared length.
        for (let i = 0; i < buf.length; i += 16 * 1024) req.write(buf.subarray(i, i + 16 * 1024));
      } else {
        req.write(buf);
      }
    }
    req.end();
  });
}

export async function readAll(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res) text += chunk;
  return text;
}

export async function send(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const res = await open(url, options);
  const text = await readAll(res);
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    text,
    json: () => JSON.parse(text),
  };
}

// ----------------------------------------------------------------------------------------------- SSE

export interface SseFrame {
  event: string;
  data: unknown;
  /** `<runId>.<seq>` (§11) when the frame has an id. */
  id?: string;
}

/**
 * The stream must begin with `retry: 1000` (§11), then frames exactly `[id: <runId>.<seq>\n]event: <name>\ndata:
 * <one-line JSON>\n\n` (§3); anything else fails the test.
 */
export function parseSse(text: string): SseFrame[] {
  assert.ok(text.startsWith('retry: 1000\n\n'), `the stream begins with retry: 1000, got ${JSON.stringify(text.slice(0, 40))}`);
  text = text.slice('retry: 1000\n\n'.length);
  if (text === '') return [];
  assert.ok(text.endsWith('\n\n'), 'the stream ends after a complete frame');
  const frames: SseFrame[] = [];
  for (const block of text.slice(0, -2).split('\n\n')) {
    const m = /^(?:id: ([A-Za-z0-9_-]{1,64}\.[1-9][0-9]*)\n)?event: ([a-z_]+)\ndata: (.+)$/.exec(block);
    assert.ok(m, `not an §3 frame: ${JSON.stringify(block).slice(0, 200)}`);
    frames.push({ event: m[2]!, data: JSON.parse(m[3]!), ...(m[1] ? { id: m[1] } : {}) });
  }
  return frames;
}

export const frameText = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** What every stream of §3 and §11 begins with. */
export const RETRY_LINE = 'retry: 1000\n\n';

// -------------------------------------------------------------------------------------------- RunHost

export interface RecordingHost extends RunHost {
  resumable: boolean;
  resumed: ResumeContext[];
  closedCalls: ClosedContext[];
  /** When set, resume waits for it after being called and before writing anything. */
  gate: Promise<void> | undefined;
  /** Resolves each time resume is entered. */
  onResume: (() => void) | undefined;
  /** When set, isResumable rejects with it (a persistent host reads its run state from the store). */
  isResumableError: Error | undefined;
  /** When set, resume rejects with it before writing anything (the run failed after the claim). */
  resumeError: Error | undefined;
}

/** A loop stand-in: resume writes tool_result, one model delta and done (done cancelled for a cancel). */
export function recordingHost(store: PendingStore): RecordingHost {
  const host: RecordingHost = {
    resumable: true,
    resumed: [],
    closedCalls: [],
    gate: undefined,
    onResume: undefined,
    isResumableError: undefined,
    resumeError: undefined,
    async isResumable() {
      if (host.isResumableError) throw host.isResumableError;
      return host.resumable;
    },
    async resume(ctx) {
      host.resumed.push(ctx);
      host.onResume?.();
      if (host.gate) await host.gate;
      if (host.resumeError) throw host.resumeError;
      await store.markToolResultWritten(ctx.record.requestId);
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

// ------------------------------------------------------------------------------------------- store

export interface BreakableStore {
  store: PendingStore;
  /** Methods listed here reject with StoreUnavailableError, as an unreachable backend's would. */
  failing: Set<string>;
  /** Every method the routes called, in order. */
  calls: string[];
}

function breakable(inner: PendingStore): BreakableStore {
  const failing = new Set<string>();
  const calls: string[] = [];
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof p !== 'string' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        calls.push(p);
        if (failing.has(p)) throw new StoreUnavailableError(`${p} timed out`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, failing, calls };
}

// ------------------------------------------------------------------------------------------ fixture

export const SINGLE = {
  title: 'Pick a strategy',
  mode: 'single',
  options: [
    { id: 'safe', label: 'Analyse first', recommended: true },
    { id: 'implement', label: 'Implement' },
  ],
} as const;

export const answer = (sessionId: string, requestId: string, over: Record<string, unknown> = {}) => ({
  sessionId,
  requestId,
  selections: ['safe'],
  customInput: '',
  cancelled: false,
  ...over,
});

/** The header the suite's authorize policy refuses: `x-test-user: intruder`. */
export const INTRUDER = { 'x-test-user': 'intruder' } as const;
export const JSON_TYPE = { 'content-type': 'application/json' } as const;

export interface Fixture {
  url: string;
  continueUrl: string;
  pendingUrl(sessionId?: string): string;
  clock: { now: number };
  /** The store as the routes see it (breakable, spied). */
  broken: BreakableStore;
  /** The real store, for the suite's own reads (never fails, not spied). */
  store: PendingStore;
  host: RecordingHost;
  audit: ReturnType<typeof memoryAuditLogger>;
  /** Every session id the authorize policy was asked about. */
  authorized: string[];
  /** What the kit reported through onError. */
  errors: unknown[];
  started: StartedHost;
  /** Ask a question in `sessionId` through the kit, as a loop would. */
  ask(sessionId: string, args?: Record<string, unknown>, toolCallId?: string): Promise<InteractionRecord>;
  /** POST continue: an object is sent as JSON, a string as is (with the given headers). */
  post(body: unknown, options?: Omit<RequestOptions, 'body' | 'method'>): Promise<HttpResponse>;
  /** GET pending; `undefined` leaves the query out. */
  pending(sessionId?: string, headers?: Record<string, string>): Promise<HttpResponse>;
  statusOf(requestId: string): Promise<string | undefined>;
  /** Every error body the routes sent, for the canary check. */
  errorBodies: string[];
  /** A second instance of the host on the same store, clock, RunHost and audit sink; its continue URL. */
  twin(): Promise<string>;
  close(): Promise<void>;
}

export interface FixtureOptions {
  allowedOrigins?: readonly string[];
  prefix?: string;
  answerLinks?: KitUnderTestOptions['answerLinks'];
  webPush?: KitUnderTestOptions['webPush'];
}

export async function startFixture(hut: HostUnderTest, options: FixtureOptions = {}): Promise<Fixture> {
  const clock = { now: T0 };
  const now = () => clock.now;
  const inner = await openStore('memory', { now });
  const broken = breakable(inner);
  const host = recordingHost(inner);
  const audit = memoryAuditLogger();
  const authorized: string[] = [];
  const errors: unknown[] = [];
  const startOptions: HostStartOptions = {
    kit: {
      store: broken.store,
      host,
      now,
      logger: audit,
      ttlMs: TTL_MS,
      heartbeatMs: 0,
      expiryTimers: false,
      prefix: options.prefix ?? '/api',
      onError: (err) => void errors.push(err),
      ...(options.answerLinks ? { answerLinks: options.answerLinks } : {}),
      ...(options.webPush ? { webPush: options.webPush } : {}),
    },
    // Async on purpose: an adapter must await the policy, not test the promise for truthiness.
    authorize: async (caller, sessionId) => {
      authorized.push(sessionId);
      await Promise.resolve();
      return caller.header('x-test-user') !== 'intruder';
    },
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  };
  const started = await hut.start(startOptions);
  const twins: StartedHost[] = [];
  const prefix = started.kit.prefix;
  const continueUrl = `${started.url}${prefix}/chat/continue`;
  const errorBodies: string[] = [];
  const keep = (res: HttpResponse) => {
    if (res.status >= 400) errorBodies.push(res.text);
    return res;
  };
  let n = 0;
  const f: Fixture = {
    url: started.url,
    continueUrl,
    pendingUrl: (sessionId) =>
      `${started.url}${prefix}/interactions/pending${sessionId === undefined ? '' : `?sessionId=${encodeURIComponent(sessionId)}`}`,
    clock,
    broken,
    store: inner,
    host,
    audit,
    authorized,
    errors,
    started,
    async ask(sessionId, args = SINGLE, toolCallId = `call_${++n}`) {
      const result = await started.kit.intercept(
        [{ id: toolCallId, type: 'function', function: { name: 'ask_user', arguments: JSON.stringify(args) } }],
        { sessionId },
      );
      if (!result.interaction) throw new Error(`ask failed: ${JSON.stringify(result.errorResults)}`);
      return result.interaction;
    },
    async post(body, opts = {}) {
      const headers = { ...(typeof body === 'string' ? {} : JSON_TYPE), ...opts.headers };
      return keep(
        await send(continueUrl, { ...opts, method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }),
      );
    },
    async pending(sessionId, headers = {}) {
      return keep(await send(f.pendingUrl(sessionId), { headers }));
    },
    async statusOf(requestId) {
      return (await inner.get(requestId))?.status;
    },
    errorBodies,
    async twin() {
      const other = await hut.start(startOptions);
      twins.push(other);
      return `${other.url}${other.kit.prefix}/chat/continue`;
    },
    async close() {
      try {
        for (const other of twins) await other.close();
        await started.close();
      } finally {
        await inner.close();
      }
    },
  };
  return f;
}

// ------------------------------------------------------------------------------------------ asserts

export interface ExpectedError {
  status: number;
  code: string;
  field?: string;
  receipt?: { requestId: string; toolCallId: string; status: string; at: string };
}

/**
 * The response is exactly the §4 error body: `{ error: { code, message, field?, receipt? } }` as JSON,
 * with `field` and `receipt` present only when expected.
 */
export function assertError(res: HttpResponse, expected: ExpectedError, label = ''): Record<string, unknown> {
  const where = `${label ? `${label}: ` : ''}${res.status} ${res.text.slice(0, 300)}`;
  assert.equal(res.status, expected.status, where);
  assert.match(String(res.headers['content-type']), /^application\/json\s*(;|$)/i, where);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], where);
  const { error } = body;
  const keys = ['code', 'message', ...(expected.field !== undefined ? ['field'] : []), ...(expected.receipt ? ['receipt'] : [])];
  assert.deepEqual(Object.keys(error).sort(), keys.sort(), where);
  assert.equal(error.code, expected.code, where);
  assert.equal(typeof error.message, 'string', where);
  assert.ok(error.message.length > 0, where);
  if (expected.field !== undefined) assert.equal(error.field, expected.field, where);
  if (expected.receipt) assert.deepEqual(error.receipt, expected.receipt, where);
  return error;
}

/** The newest audit entry is the `rejected` line of this refusal (§8). */
export function assertRejectedAudit(f: Fixture, code: string): void {
  const last = f.audit.entries.at(-1);
  assert.equal(last?.event, 'rejected');
  assert.equal(last?.reason, code);
}

/** The canary sent in inputs appears in no error body and no audit entry. */
export function assertNoCanary(f: Fixture): void {
  for (const body of f.errorBodies) assert.ok(!body.toLowerCase().includes(CANARY), `an error body quotes input: ${body.slice(0, 300)}`);
  const audit = JSON.stringify(f.audit.entries).toLowerCase();
  assert.ok(!audit.includes(CANARY), 'an audit entry quotes input');
}

/** A JSON body of exactly `bytes` bytes answering `requestId` in `sessionId`; the padding key is ignored by the schema. */
export function bodyOfSize(sessionId: string, requestId: string, bytes: number): string {
  const base = JSON.stringify({ ...answer(sessionId, requestId), pad: '' });
  const padding = bytes - Buffer.byteLength(base);
  assert.ok(padding >= 0);
  const text = JSON.stringify({ ...answer(sessionId, requestId), pad: 'x'.repeat(padding) });
  assert.equal(Buffer.byteLength(text), bytes);
  return text;
}
