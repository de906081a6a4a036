/**
 * The demo agent server without its web framework: the kit, the agent loop, the developer trace, the
 * session owners, and the demo's own routes as plain functions. demo/servers/ serves them on Koa,
 * Express or Hono through the kit's adapters (ASK_USER_SERVER), so the three share every behaviour.
 */
import type OpenAI from 'openai';
import {
  AskUserError,
  consoleAuditLogger,
  createAskUserKit,
  crossSiteReason,
  openStore,
  requestIdSchema,
  sessionIdSchema,
  StoreUnavailableError,
  type AskUserKit,
  type AuditLogger,
  type Notification,
  type Notifier,
  type PendingStore,
  type RunHost,
  type RuntimeFactory,
  type WebPushNotifierOptions,
} from 'ask-user-kit/plugin';
import { agentRuntime, type AgentLoop, type LoopTool } from 'ask-user-kit/plugin/loop';
import type { AiSdkRuntime } from 'ask-user-kit/plugin/ai-sdk';
import type { McpElicitation } from 'ask-user-kit/plugin/mcp';
import { asDemoLoop, demoAiSdkRuntime, type DemoAiSdkApi } from './ai-sdk-runtime.js';
import { TraceBook } from './trace.js';
import { demoToolsFor } from './tools.js';
import { ownsSession } from './session-owners.js';
import { closingsOf, recordClosings, sessionView } from './session-view.js';
import { staticFile, widgetFile, WIDGET_SCRIPT, type StaticFile } from './static-files.js';

export const DEMO_SERVERS = ['koa', 'express', 'hono'] as const;
export type DemoServer = (typeof DEMO_SERVERS)[number];
/** The agent loop on Chat Completions or on the OpenAI Responses API, or the kit's Vercel AI SDK runtime. */
export const DEMO_RUNTIMES = ['chat', 'responses', 'ai-sdk'] as const;
export type DemoRuntime = (typeof DEMO_RUNTIMES)[number];

export interface DemoAppOptions {
  store: PendingStore;
  client: OpenAI;
  model: string;
  /** Which framework serves the page and the API. @default 'koa' */
  server?: DemoServer;
  /** Which agent runtime runs the chat. @default 'chat' */
  runtime?: DemoRuntime;
  /** With runtime 'ai-sdk': the API its model speaks (ASK_USER_AI_SDK_API). @default 'chat' */
  aiSdkApi?: DemoAiSdkApi;
  /** @default 'persistent' */
  hostMode?: 'persistent' | 'in-process';
  /** @default 30 minutes */
  ttlMs?: number;
  /** @default 'zh' */
  locale?: 'zh' | 'en';
  /** @default 8 */
  maxRounds?: number;
  /** @default the demo's list_test_suites, deploy_preview and delete_branch (demo/tools.ts), in `locale` */
  tools?: readonly LoopTool[] | ((sessionId: string) => readonly LoopTool[]);
  /** Built page to serve; omitted: API only. */
  staticDir?: string;
  /** @default one JSON line per entry on stdout */
  audit?: AuditLogger;
  heartbeatMs?: number;
  system?: string;
  /** Longest silence from the model endpoint before a run ends with `model_timeout`. @default 120000 */
  modelIdleTimeoutMs?: number;
  /** MCP elicitation (§10): the runtime is wrapped so a card an MCP server asked for is answered back to it. */
  elicitation?: McpElicitation;
  /** The loop's log of failures. @default console.error with API-key-like tokens masked */
  onError?: (err: unknown) => void;
  /**
   * Keep the developer trace (raw SSE bytes and audit lines, free text included, in process memory) and
   * serve it at `GET /api/trace` to the session's owner. @default false
   */
  trace?: boolean;
  /** Reaching a user who is away (§13): notifiers besides Web Push, e.g. the Standard Webhooks one. @default none */
  notifiers?: readonly Notifier[];
  /** How long an open card waits before the notifiers run. @default the kit's 30000 */
  notifyAfterMs?: number;
  /**
   * Web Push (§13): the kit's push routes, and a push for each waiting card of a subscribed session. A click
   * on it opens the page at the card (`/?session=…&card=…`) unless the card has an answer link. @default off
   */
  webPush?: Omit<WebPushNotifierOptions, 'urlOf'>;
  /**
   * One-card answer links (§13) on `publicUrl`: the link's page loads the widget's standalone bundle from
   * `widgetDir`, served at `/widget/`, and the page's "answer elsewhere" action makes one. @default off
   */
  answerLinks?: { publicUrl: string };
  /** The directory of the widget's standalone bundle (the package's dist/widget), served at `/widget/`. */
  widgetDir?: string;
}

/** Where a push's click opens the page when the card has no answer link: the session, at the card. */
export const pageUrlOf = (n: Pick<Notification, 'sessionId' | 'requestId'>) =>
  `/?session=${encodeURIComponent(n.sessionId)}&card=${encodeURIComponent(n.requestId)}`;

/** What a demo route needs of a request: the cross-site rule's headers, and its JSON body. */
export interface DemoRequest {
  origin: string | undefined;
  fetchSite: string | undefined;
  /** `protocol://host` as the client addressed the server. */
  ownOrigin: string;
  /** The body within the contract's limits (the framework adapter's reader); throws an AskUserError. */
  readJson(): Promise<unknown>;
}

export const DEMO_SYSTEM_PROMPT =
  'You are a helpful engineering assistant. When a task lacks information only the user has, call ask_user with one clear question; ' +
  'after its result arrives, continue the task using exactly what the user chose (option ids) and typed. If the user cancelled, stop.';

/** A JSON answer of a demo route, for the framework to write. */
export interface DemoReply {
  status: number;
  body: unknown;
}

const invalid = (message: string, field?: string) => new AskUserError('invalid_request', message, field ? { field } : {});
const forbidden = () => new AskUserError('forbidden', 'This request is not allowed to act on that session.');
const reply = (err: AskUserError): DemoReply => ({ status: err.status, body: err.toBody() });

export interface DemoCore<Ctx> {
  kit: AskUserKit<Ctx, AgentLoop>;
  loop: AgentLoop;
  trace: TraceBook | undefined;
  staticDir: string | undefined;
  /** Whether the browser holding `token` owns `sessionId` (it does once it used it first). */
  owns(token: string, sessionId: string): Promise<boolean>;
  /** `GET /api/session` and `GET /api/trace`. */
  view(path: '/api/session' | '/api/trace', sessionId: unknown, token: string): Promise<DemoReply>;
  health(): DemoReply;
  /** `GET /api/features`: which of §13's page actions this server offers. */
  features(): DemoReply;
  /** `POST /api/answer-link` `{ sessionId, requestId }`: a new answer link to the session's waiting card, for its owner. */
  answerLink(req: DemoRequest, token: () => string): Promise<DemoReply>;
  /** The built page's file, or a file of the widget's standalone bundle at `/widget/`, for a GET of `path`. */
  file(method: string, path: string): Promise<StaticFile | undefined>;
  close(): Promise<void>;
}

/** `tokenOf` reads (or sets) the browser cookie from the framework's request context. */
export async function createDemoCore<Ctx>(options: DemoAppOptions, tokenOf: (ctx: Ctx) => string): Promise<DemoCore<Ctx>> {
  const {
    store,
    client,
    model,
    server = 'koa',
    runtime = 'chat',
    hostMode = 'persistent',
    ttlMs,
    locale = 'zh',
    maxRounds = 8,
    tools = demoToolsFor(locale),
    heartbeatMs,
    system = DEMO_SYSTEM_PROMPT,
  } = options;
  const trace = options.trace ? new TraceBook() : undefined;
  const audit = options.audit ?? consoleAuditLogger();
  const logger = recordClosings(store, trace ? trace.auditLogger(audit) : audit);
  const owns = (token: string, sessionId: string) => ownsSession(store, token, sessionId);
  if (options.answerLinks && !options.widgetDir) throw new TypeError('answerLinks needs widgetDir: the link page loads the widget from it');
  const kitOptions = {
    store,
    logger,
    authorize: (ctx: Ctx, sessionId: string) => owns(tokenOf(ctx), sessionId),
    ...(ttlMs ? { ttlMs } : {}),
    ...(heartbeatMs !== undefined ? { heartbeatMs } : {}),
    ...(options.notifiers ? { notifiers: options.notifiers } : {}),
    ...(options.notifyAfterMs !== undefined ? { notifyAfterMs: options.notifyAfterMs } : {}),
    ...(options.webPush ? { webPush: { ...options.webPush, urlOf: pageUrlOf } } : {}),
    ...(options.answerLinks
      ? {
          answerLinks: {
            publicUrl: options.answerLinks.publicUrl,
            widgetScript: WIDGET_SCRIPT,
            locale: locale === 'zh' ? ('zh-CN' as const) : ('en' as const),
          },
        }
      : {}),
  };
  // In-process: the run's state lives in this process only, so after a restart the card cannot resume.
  const stateStore = hostMode === 'in-process' ? await openStore('memory') : undefined;
  const withMcp = <R extends RunHost>(factory: RuntimeFactory<R>) => (options.elicitation ? options.elicitation.around(factory) : factory);
  const shared = {
    client,
    model,
    tools,
    maxRounds,
    locale,
    system,
    ...(stateStore ? { stateStore } : {}),
    ...(options.modelIdleTimeoutMs !== undefined ? { modelIdleTimeoutMs: options.modelIdleTimeoutMs } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };
  // The AI SDK runtime is seen through the loop's surface, so routes, page and tests stay the same.
  const kit: AskUserKit<Ctx, AgentLoop> & { readonly runtime: AgentLoop } =
    runtime === 'ai-sdk'
      ? await (async () => {
          const factory = await demoAiSdkRuntime({ ...shared, api: options.aiSdkApi ?? 'chat' });
          const built = createAskUserKit<Ctx, AiSdkRuntime>({ ...kitOptions, runtime: withMcp(factory) });
          return Object.assign(built, { runtime: asDemoLoop(built.runtime) }) as unknown as AskUserKit<Ctx, AgentLoop> & {
            readonly runtime: AgentLoop;
          };
        })()
      : createAskUserKit<Ctx, AgentLoop>({ ...kitOptions, runtime: withMcp(agentRuntime({ ...shared, api: runtime })) });
  const loop = kit.runtime;

  return {
    kit,
    loop,
    trace,
    staticDir: options.staticDir,
    owns,
    async view(path, raw, token) {
      const sessionId = sessionIdSchema.safeParse(raw);
      if (!sessionId.success) return reply(invalid('sessionId: required as a query parameter', 'sessionId'));
      if (!(await owns(token, sessionId.data))) return reply(forbidden());
      if (path === '/api/session') {
        const run = await loop.getRun(sessionId.data);
        return { status: 200, body: sessionView(sessionId.data, run, await closingsOf(store, sessionId.data, run)) };
      }
      if (!trace)
        return {
          status: 404,
          body: { error: { code: 'not_found', message: 'The developer trace is off; start the demo with ASK_USER_TRACE=1 to keep it.' } },
        };
      return { status: 200, body: { sessionId: sessionId.data, lines: trace.get(sessionId.data) } };
    },
    health: () => ({ status: 200, body: { ok: true, store: store.kind, model, hostMode, trace: trace !== undefined, server, runtime } }),
    features: () => ({ status: 200, body: { answerLinks: options.answerLinks !== undefined, webPush: options.webPush !== undefined } }),
    async answerLink(req, token) {
      try {
        if (!options.answerLinks) throw new AskUserError('not_found', 'Answer links are off; start the demo with ASK_USER_ANSWER_LINKS=1.');
        const crossSite = crossSiteReason(req.origin, req.fetchSite, req.ownOrigin);
        if (crossSite) throw new AskUserError('forbidden', `Cross-site request: ${crossSite}.`);
        const raw = (await req.readJson()) as { sessionId?: unknown; requestId?: unknown } | undefined;
        const sessionId = sessionIdSchema.safeParse(raw?.sessionId);
        if (!sessionId.success) throw invalid('sessionId: required', 'sessionId');
        const requestId = requestIdSchema.safeParse(raw?.requestId);
        if (!requestId.success) throw invalid('requestId: required', 'requestId');
        if (!(await owns(token(), sessionId.data))) throw forbidden();
        const open = await store.currentOf(sessionId.data);
        if (!open || open.requestId !== requestId.data || open.status !== 'pending' || open.expiresAt <= Date.now()) {
          throw new AskUserError('not_found', 'This session has no waiting card with that requestId.');
        }
        // The link is a capability: it goes to the owner in this answer, and to no log.
        return { status: 200, body: { requestId: requestId.data, url: await kit.answerLink(requestId.data) } };
      } catch (err) {
        if (err instanceof AskUserError) return reply(err);
        if (err instanceof StoreUnavailableError)
          return reply(new AskUserError('store_unavailable', 'The store is unavailable; try again.'));
        throw err;
      }
    },
    async file(method, path) {
      if (options.widgetDir && path.startsWith('/widget/')) return widgetFile(options.widgetDir, method, path);
      return options.staticDir ? staticFile(options.staticDir, method, path) : undefined;
    },
    async close() {
      await kit.close();
      await stateStore?.close();
    },
  };
}
