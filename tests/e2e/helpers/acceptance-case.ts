/**
 * One acceptance case: a scripted model, the real demo server as a child process pointed at it, a fresh
 * browser context with the wire tap, and the evidence folder. `runCase` writes the evidence whether the
 * case passes or fails, so a failure always leaves behind what was (and was not) observed. A case may run on
 * a demo several cases share (`shared`, tests/e2e/helpers/shared-demo.ts): its own sessions and pages, the
 * evidence of what it added to the shared model's requests and the server's output. A test file may run its cases
 * on another store than SQLite (helpers/store-variant.ts): a case naming no store then runs on that store.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium, type LaunchedBrowser } from './browser.js';
import { auditLines, startDemoProcess, type DemoProcess, type DemoProcessOptions, type OutputLine } from './demo-process.js';
import { openEvidence, type Evidence } from './evidence.js';
import { installWireTap, type WireTap } from './wire-tap.js';
import { ChatPage, preparePage } from './demo-page.js';
import { startScriptedModel, type ChatRequestBody, type ScriptedModel, type TurnScript } from '../../helpers/scripted-model.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { TEST_BROWSER_TOKEN } from '../../helpers/browser-identity.js';
import { OWNER_COOKIE } from '../../../demo/session-owners.js';
import { assertDemoStore, storeLabel, storeVariant } from './store-variant.js';

let shared: Promise<LaunchedBrowser> | undefined;

/** The suite's one browser, launched on first use. */
export function suiteBrowser(): Promise<Browser> {
  shared ??= launchChromium();
  return shared.then((b) => b.browser);
}

export async function closeSuiteBrowser(): Promise<void> {
  if (shared) await (await shared).close();
  shared = undefined;
}

/** A model and a demo server that several cases of a test file run on, one after the other (shared-demo.ts). */
export interface SharedDemo {
  readonly model: ScriptedModel;
  readonly server: DemoProcess;
  readonly storeUrl: string;
  readonly tmp: TempDir;
  /**
   * The model as one case sees it, where the shared model plays each case's own `turns` (a demo for cases that
   * script the model themselves): only the requests since the case began; released by its `close`.
   */
  caseModel?(turns: TurnScript[], fallback: TurnScript): ScriptedModel;
}

export interface CaseOptions {
  /** The model's turns, in order. @default none */
  turns?: TurnScript[];
  /** The model's answer once `turns` are used up. @default a text saying the model was called more often than the case expected */
  fallback?: TurnScript;
  /**
   * Store kind; `sqlite` gets a file in the case's temp dir. @default 'sqlite', or the test file's store
   * (helpers/store-variant.ts): its shared demo when the case asks for no server of its own (no `hostMode`,
   * `ttlMs` or `noServer`), else a store of the case's own.
   */
  store?: 'memory' | 'sqlite' | { url: string };
  ttlMs?: number;
  hostMode?: DemoProcessOptions['hostMode'];
  /** Do not start the server (the case starts its own). */
  noServer?: boolean;
  /**
   * Run on this shared demo: its model and server are neither started nor stopped here (`store`, `ttlMs` and
   * `hostMode` do not apply; `turns` only where the demo plays each case's own, `caseModel`).
   */
  shared?: SharedDemo;
}

export interface Case {
  readonly name: string;
  readonly evidence: Evidence;
  readonly model: ScriptedModel;
  /** The requests the model received during this case (on a shared model, only those since the case began). */
  readonly requests: ChatRequestBody[];
  readonly tmp: TempDir;
  readonly storeUrl: string;
  /** The first server; `servers` holds every one the case started. */
  readonly server: DemoProcess;
  readonly servers: DemoProcess[];
  readonly contexts: BrowserContext[];
  readonly taps: WireTap[];
  /** A further server on the same model and store (e.g. a second instance). */
  startServer(overrides?: Partial<DemoProcessOptions>): Promise<DemoProcess>;
  /** A new context (own cookies and storage) with a tapped page on `server`. */
  openPage(server?: DemoProcess): Promise<{ chat: ChatPage; tap: WireTap; context: BrowserContext }>;
  /** Notes written to `notes.json`, for what an assertion checked. */
  note(key: string, value: unknown): void;
}

/** The framework the demo servers of this process run on (ASK_USER_SERVER, inherited by each child). */
export const DEMO_SERVER = process.env.ASK_USER_SERVER || 'koa';
/** The agent runtime they run (ASK_USER_RUNTIME, inherited the same way). */
export const DEMO_RUNTIME = process.env.ASK_USER_RUNTIME || 'chat';

/** Fails unless `server` runs on the framework and runtime this test process claims (ASK_USER_SERVER, ASK_USER_RUNTIME). */
export async function assertDemoVariant(server: DemoProcess): Promise<void> {
  const health = (await (await fetch(`${server.url}/api/health`)).json()) as { server?: string; runtime?: string };
  if (health.server !== DEMO_SERVER) throw new Error(`the demo server runs on ${health.server}, not ${DEMO_SERVER}`);
  if (health.runtime !== DEMO_RUNTIME) throw new Error(`the demo server runs the ${health.runtime} runtime, not ${DEMO_RUNTIME}`);
}

export async function runCase(name: string, options: CaseOptions, body: (c: Case) => Promise<void>): Promise<void> {
  // The test file's store, for a case that names none (helpers/store-variant.ts).
  const onStore = options.store === undefined && !options.shared ? storeVariant() : undefined;
  // Koa on Chat Completions on SQLite keeps the plain names; another framework's, runtime's or store's run keeps its evidence beside them.
  const variant = [DEMO_SERVER === 'koa' ? '' : DEMO_SERVER, DEMO_RUNTIME === 'chat' ? '' : DEMO_RUNTIME, storeVariant()?.kind ?? '']
    .filter(Boolean)
    .join('-');
  const evidence = await openEvidence(variant ? `${name}-${variant}` : name);
  const ownServer = Boolean(options.hostMode || options.ttlMs || options.noServer);
  let shared = options.shared;
  let caseStore: string | undefined;
  try {
    if (onStore && !ownServer) shared = await onStore.sharedDemo();
    else if (onStore) caseStore = await onStore.caseStore(name);
  } catch (error) {
    // The store (or the demo on it) did not start: the case fails saying why, in its evidence too.
    await evidence.write('notes.json', { failure: String((error as Error).stack ?? error) }).catch(() => {});
    throw error;
  }
  const tmp = shared?.tmp ?? (await makeTempDir('ask-user-e2e-'));
  const turns = options.turns ?? [];
  const fallback = options.fallback ?? { text: '(e2e: no scripted turn left — the model was called more often than the case expected)' };
  const model = shared ? (shared.caseModel?.(turns, fallback) ?? shared.model) : await startScriptedModel({ turns, fallback });
  const firstRequest = model.requests.length;
  const store = options.store ?? 'sqlite';
  const storeUrl =
    shared?.storeUrl ??
    caseStore ??
    (store === 'memory' ? 'memory' : store === 'sqlite' ? `sqlite://${tmp.file('ask-user.db')}` : store.url);
  const servers: DemoProcess[] = shared ? [shared.server] : [];
  /** Where each server's output stood when the case began: a shared server's evidence is what this case added. */
  const firstLine = new Map<DemoProcess, number>(servers.map((s) => [s, s.output.length]));
  const contexts: BrowserContext[] = [];
  const taps: WireTap[] = [];
  const notes: Record<string, unknown> = {};
  const pages: ChatPage[] = [];

  const startServer = async (overrides: Partial<DemoProcessOptions> = {}) => {
    const server = await startDemoProcess({
      baseURL: model.baseURL,
      store: storeUrl,
      ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
      ...(options.hostMode ? { hostMode: options.hostMode } : {}),
      ...overrides,
    });
    servers.push(server);
    firstLine.set(server, 0);
    // The case runs on the framework and runtime it claims to: the server says which ones serve it.
    await assertDemoVariant(server);
    if (onStore) await assertDemoStore(server, onStore.kind);
    return server;
  };

  let failure: unknown;
  try {
    if (onStore) {
      // The shared demo still says it is on the file's store (a server of the case's own is checked as it starts).
      if (shared) await assertDemoStore(shared.server, onStore.kind);
      // The store's own label: no password, and it reads a cluster's list of hosts too.
      notes.store = { kind: onStore.kind, url: storeLabel(storeUrl), shared: Boolean(shared) };
    }
    if (!options.noServer && !shared) await startServer();
    const browser = await suiteBrowser();
    const c: Case = {
      name,
      evidence,
      model,
      get requests() {
        return model.requests.slice(firstRequest);
      },
      tmp,
      storeUrl,
      get server() {
        if (!servers[0]) throw new Error('this case started no server');
        return servers[0];
      },
      servers,
      contexts,
      taps,
      startServer,
      async openPage(server = servers[0]) {
        if (!server) throw new Error('openPage: no server is running');
        const context = await browser.newContext({ viewport: { width: 900, height: 900 }, locale: 'zh-CN', timezoneId: 'Asia/Shanghai' });
        contexts.push(context);
        // The page is the same browser as the test's own requests (tests/helpers/browser-identity.ts).
        await context.addCookies([{ name: OWNER_COOKIE, value: TEST_BROWSER_TOKEN, url: server.url }]);
        const tap = await installWireTap(context);
        taps.push(tap);
        const kind = await preparePage(context, server.url);
        const chat = new ChatPage(await context.newPage(), server.url, kind);
        pages.push(chat);
        return { chat, tap, context };
      },
      note: (key, value) => void (notes[key] = value),
    };
    await body(c);
  } catch (error) {
    failure = error;
  }

  try {
    await writeEvidence(evidence, {
      requests: model.requests.slice(firstRequest),
      servers: servers.map((server) => ({ server, output: server.output.slice(firstLine.get(server) ?? 0) })),
      taps,
      pages,
      notes,
      failure,
    });
  } catch (error) {
    console.error(`evidence for ${name} could not be written completely: ${(error as Error).message}`);
  }
  for (const context of contexts) await context.close().catch(() => {});
  for (const server of servers) if (server !== shared?.server) await server.stop().catch(() => {});
  // A case's own model, or its view of a shared one (which lets the model go).
  if (!shared || shared.caseModel) await model.close().catch(() => {});
  if (!shared) await tmp.remove().catch(() => {});
  if (failure) throw failure;
}

async function writeEvidence(
  evidence: Evidence,
  run: {
    requests: ChatRequestBody[];
    servers: Array<{ server: DemoProcess; output: OutputLine[] }>;
    taps: WireTap[];
    pages: ChatPage[];
    notes: Record<string, unknown>;
    failure: unknown;
  },
) {
  const { requests, servers, taps, pages, notes, failure } = run;
  for (const [i, chat] of pages.entries()) {
    if (!chat.page.isClosed()) await evidence.screenshot(chat.page, pages.length > 1 ? `final-page-${i + 1}` : 'final').catch(() => {});
  }
  const index: unknown[] = [];
  for (const [t, tap] of taps.entries()) {
    for (const [i, x] of tap.exchanges.entries()) {
      const kind = x.path
        .split('?')[0]!
        .replace(/^\/api\//, '')
        .replace(/\W+/g, '-');
      const file = `${taps.length > 1 ? `page${t + 1}-` : ''}${String(i + 1).padStart(2, '0')}-${x.method.toLowerCase()}-${kind}.${x.contentType?.startsWith('text/event-stream') ? 'sse' : 'txt'}`;
      await evidence.write(`wire/${file}`, tap.body(x));
      index.push({
        file: `wire/${file}`,
        method: x.method,
        path: x.path,
        requestBody: x.requestBody,
        status: x.status,
        contentType: x.contentType,
        bytes: tap.body(x).length,
        end: x.end,
        failed: x.failed,
      });
    }
  }
  await evidence.write('wire-index.json', index);
  await evidence.write(
    'requests-seen-by-browser.json',
    taps.map((t) => t.requests),
  );
  await evidence.write('model-requests.json', requests);
  await evidence.write(
    'tool-messages-received-by-model.json',
    requests.flatMap((body, request) =>
      body.messages.filter((m) => m.role === 'tool').map((m) => ({ request, tool_call_id: m.tool_call_id, content: m.content })),
    ),
  );
  for (const [i, { output }] of servers.entries()) {
    const suffix = servers.length > 1 ? `-server${i + 1}` : '';
    await evidence.write(
      `server-output${suffix}.log`,
      output.map((l) => `${l.at} [gen ${l.generation}] ${l.stream}: ${l.text}`).join('\n') + '\n',
    );
    await evidence.write(
      `audit${suffix}.jsonl`,
      auditLines(output)
        .map((a) => JSON.stringify(a))
        .join('\n') + '\n',
    );
  }
  // The server's own trace of the session(s) the pages used, while the server is still up.
  const sessions = new Set<string>();
  for (const tap of taps)
    for (const x of tap.exchanges) {
      const id = x.requestBody
        ? (safeJson(x.requestBody) as { sessionId?: string } | undefined)?.sessionId
        : new URLSearchParams(x.path.split('?')[1] ?? '').get('sessionId');
      if (id) sessions.add(id);
    }
  const traces: Record<string, unknown> = {};
  for (const [i, { server }] of servers.entries()) {
    for (const sessionId of sessions) {
      const res = await fetch(`${server.url}/api/trace?sessionId=${encodeURIComponent(sessionId)}`).catch(() => undefined);
      traces[`server${i + 1}:${sessionId}`] = res?.ok ? await res.json() : `unavailable (${res?.status ?? 'server down'})`;
    }
  }
  await evidence.write('server-trace.json', traces);
  await evidence.write('notes.json', { ...notes, ...(failure ? { failure: String((failure as Error).stack ?? failure) } : {}) });
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
