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
  openStore,
  sessionIdSchema,
  type AskUserKit,
  type AuditLogger,
  type PendingStore,
  type RunHost,
  type RuntimeFactory,
} from 'ask-user-kit/plugin';
import { agentRuntime, type AgentLoop, type LoopTool } from 'ask-user-kit/plugin/loop';
import type { AiSdkRuntime } from 'ask-user-kit/plugin/ai-sdk';
import type { McpElicitation } from 'ask-user-kit/plugin/mcp';
import { asDemoLoop, demoAiSdkRuntime, type DemoAiSdkApi } from './ai-sdk-runtime.js';
import { TraceBook } from './trace.js';
import { demoToolsFor } from './tools.js';
import { ownsSession } from './session-owners.js';
import { closingsOf, recordClosings, sessionView } from './session-view.js';

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
  const kitOptions = {
    store,
    logger,
    authorize: (ctx: Ctx, sessionId: string) => owns(tokenOf(ctx), sessionId),
    ...(ttlMs ? { ttlMs } : {}),
    ...(heartbeatMs !== undefined ? { heartbeatMs } : {}),
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
        return {
          status: 200,
          body: sessionView(sessionId.data, await loop.getRun(sessionId.data), await closingsOf(store, sessionId.data)),
        };
      }
      if (!trace)
        return {
          status: 404,
          body: { error: { code: 'not_found', message: 'The developer trace is off; start the demo with ASK_USER_TRACE=1 to keep it.' } },
        };
      return { status: 200, body: { sessionId: sessionId.data, lines: trace.get(sessionId.data) } };
    },
    health: () => ({ status: 200, body: { ok: true, store: store.kind, model, hostMode, trace: trace !== undefined, server, runtime } }),
    async close() {
      await kit.close();
      await stateStore?.close();
    },
  };
}
