/**
 * The demo agent server as a Koa app: the plugin's routes, `POST /api/chat` on the plugin's agent loop,
 * a developer trace, and the built page — everything `demo/server.ts` serves on one port. Tests build
 * it in-process on their own store and model.
 */
import Koa from 'koa';
import type OpenAI from 'openai';
import { createAskUserKit, type AskUserKit } from '../plugin/ask-user-kit.js';
import type { Authorize } from '../plugin/authorization.js';
import { crossSiteReason } from '../plugin/same-origin.js';
import { consoleAuditLogger, type AuditLogger } from '../plugin/audit.js';
import { AskUserError } from '../plugin/errors.js';
import { koaRoutes, koaSse, readJsonBody } from '../plugin/adapters/koa.js';
import { openStore } from '../plugin/store/index.js';
import type { PendingStore } from '../plugin/store/types.js';
import { sessionIdSchema, LIMITS } from '../plugin/contract/schema.js';
import { createAgentLoop, type AgentLoop, type LoopTool } from '../plugin/loop/index.js';
import { TraceBook } from './trace.js';
import { staticFiles } from './static-files.js';
import { demoTools } from './tools.js';
import { sessionOwners } from './session-owners.js';
import { closingsOf, recordClosings, sessionView } from './session-view.js';

export interface DemoAppOptions {
  store: PendingStore;
  client: OpenAI;
  model: string;
  /** @default 'persistent' */
  hostMode?: 'persistent' | 'in-process';
  /** @default 30 minutes */
  ttlMs?: number;
  /** @default 'zh' */
  locale?: 'zh' | 'en';
  /** @default 8 */
  maxRounds?: number;
  /** @default the demo's list_test_suites */
  tools?: LoopTool[];
  /** Built page to serve; omitted: API only. */
  staticDir?: string;
  /** @default one JSON line per entry on stdout */
  audit?: AuditLogger;
  heartbeatMs?: number;
  system?: string;
  /** Longest silence from the model endpoint before a run ends with `model_timeout`. @default 120000 */
  modelIdleTimeoutMs?: number;
  /** The loop's log of failures. @default console.error with API-key-like tokens masked */
  onError?: (err: unknown) => void;
  /** Who may act on a session. @default the browser that first used it (an HttpOnly cookie; demo/session-owners.ts) */
  authorize?: Authorize;
  /**
   * Keep the developer trace (raw SSE bytes and audit lines, free text included, in process memory) and
   * serve it at `GET /api/trace` to the session's owner. @default false
   */
  trace?: boolean;
}

export interface DemoApp {
  app: Koa;
  kit: AskUserKit;
  loop: AgentLoop;
  /** The developer trace, when `trace` is on. */
  trace: TraceBook | undefined;
  close(): Promise<void>;
}

export const DEMO_SYSTEM_PROMPT =
  'You are a helpful engineering assistant. When a task lacks information only the user has, call ask_user with one clear question; ' +
  'after its result arrives, continue the task using exactly what the user chose (option ids) and typed. If the user cancelled, stop.';

const MESSAGE_MAX = LIMITS.customInput;

function badRequest(ctx: Koa.Context, message: string, field?: string) {
  ctx.status = 400;
  ctx.body = { error: { code: 'invalid_request', message, ...(field ? { field } : {}) } };
}

export async function createDemoApp(options: DemoAppOptions): Promise<DemoApp> {
  const { store, client, model, hostMode = 'persistent', ttlMs, locale = 'zh', maxRounds = 8, tools = demoTools, staticDir, heartbeatMs, system = DEMO_SYSTEM_PROMPT } = options;
  const authorize = options.authorize ?? sessionOwners(store);
  const trace = options.trace ? new TraceBook() : undefined;
  const audit = options.audit ?? consoleAuditLogger();
  const logger = recordClosings(store, trace ? trace.auditLogger(audit) : audit);
  const common = {
    client,
    model,
    store,
    tools,
    maxRounds,
    locale,
    system,
    ...(options.modelIdleTimeoutMs !== undefined ? { modelIdleTimeoutMs: options.modelIdleTimeoutMs } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };

  let kit: AskUserKit;
  let loop: AgentLoop;
  let stateStore: PendingStore | undefined;
  if (hostMode === 'in-process') {
    // The run lives in this process only: its history in a memory store, its pause in the kit's waiter.
    stateStore = await openStore('memory');
    kit = createAskUserKit({ store, logger, authorize, ...(ttlMs ? { ttlMs } : {}), ...(heartbeatMs !== undefined ? { heartbeatMs } : {}) });
    loop = createAgentLoop({ ...common, stateStore, inProcess: kit, coordinator: kit });
  } else {
    loop = createAgentLoop(common);
    kit = createAskUserKit({ store, logger, authorize, host: loop.host, ...(ttlMs ? { ttlMs } : {}), ...(heartbeatMs !== undefined ? { heartbeatMs } : {}) });
    loop.attach(kit);
  }

  const app = new Koa();
  app.on('error', (err) => console.error('[demo]', err));
  if (trace) app.use(trace.tap({ chat: '/api/chat', continue: '/api/chat/continue' }));

  /** 403 in the plugin's words unless the caller owns the session; nothing about the session is said. */
  const refused = async (ctx: Koa.Context, sessionId: string): Promise<boolean> => {
    if (await authorize(ctx, sessionId)) return false;
    const err = new AskUserError('forbidden', 'This request is not allowed to act on that session.');
    ctx.status = err.status;
    ctx.body = err.toBody();
    return true;
  };

  app.use(async function demoRoutes(ctx, next) {
    if (ctx.path === '/api/chat' && ctx.method === 'POST') {
      let raw: unknown;
      try {
        const crossSite = crossSiteReason(ctx.get('origin') || undefined, ctx.get('sec-fetch-site') || undefined, `${ctx.protocol}://${ctx.host}`);
        if (crossSite) throw new AskUserError('forbidden', `Cross-site request: ${crossSite}.`);
        raw = await readJsonBody(ctx);
      } catch (err) {
        // The plugin's own answer for a bad body: JSON, 400/413/415, the body never echoed or logged.
        if (!(err instanceof AskUserError)) throw err;
        ctx.status = err.status;
        ctx.body = err.toBody();
        return;
      }
      const body = (typeof raw === 'object' && raw !== null ? raw : {}) as { sessionId?: unknown; message?: unknown };
      const sessionId = sessionIdSchema.safeParse(body.sessionId);
      if (!sessionId.success) return badRequest(ctx, `sessionId: ${sessionId.error.issues[0]!.message}`, 'sessionId');
      if (typeof body.message !== 'string' || body.message.trim() === '' || body.message.length > MESSAGE_MAX) {
        return badRequest(ctx, `message: a non-blank string of at most ${MESSAGE_MAX} characters is required`, 'message');
      }
      if (await refused(ctx, sessionId.data)) return;
      const sse = koaSse(kit, ctx);
      await loop.chat({ sessionId: sessionId.data, message: body.message, sse });
      return;
    }
    if (ctx.method === 'GET' && (ctx.path === '/api/trace' || ctx.path === '/api/session')) {
      const sessionId = sessionIdSchema.safeParse(ctx.query.sessionId);
      if (!sessionId.success) return badRequest(ctx, 'sessionId: required as a query parameter', 'sessionId');
      ctx.set('Cache-Control', 'no-store');
      if (await refused(ctx, sessionId.data)) return;
      if (ctx.path === '/api/trace' && !trace) {
        ctx.status = 404;
        ctx.body = { error: { code: 'not_found', message: 'The developer trace is off; start the demo with ASK_USER_TRACE=1 to keep it.' } };
        return;
      }
      ctx.body =
        ctx.path === '/api/trace'
          ? { sessionId: sessionId.data, lines: trace!.get(sessionId.data) }
          : sessionView(sessionId.data, await loop.getRun(sessionId.data), await closingsOf(store, sessionId.data));
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/api/health') {
      ctx.body = { ok: true, store: store.kind, model, hostMode, trace: trace !== undefined };
      return;
    }
    await next();
  });
  app.use(koaRoutes(kit));
  if (staticDir) app.use(staticFiles(staticDir));

  return {
    app,
    kit,
    loop,
    trace,
    async close() {
      await kit.close();
      await loop.close();
      await stateStore?.close();
    },
  };
}
