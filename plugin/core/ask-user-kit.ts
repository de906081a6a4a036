/**
 * `createAskUserKit(options)`: everything an agent server needs for `ask_user`, free of any web
 * framework — the routes' handler, the interception its loop calls, the store — wired from one options
 * object. An adapter (plugin/adapters/: Koa, Express, Fetch/Hono) serves the routes and the chat stream.
 */
import { consoleAuditLogger, safeAuditLogger, type AuditLogger } from './audit.js';
import {
  Coordinator,
  type AskContext,
  type CloseStatus,
  type InterceptContext,
  type InterceptResult,
  type ToolCallLike,
} from './coordinator.js';
import type { AskUserForm, UserInputRequired } from '../contract/schema.js';
import { createInProcessHost, type InProcessAnswer, type InProcessHost } from './in-process-host.js';
import { lazyStore } from './lazy-store.js';
import { createRoutes, type RouteRequest, type RouteResult } from './routes.js';
import { anyCallerWarning, requireAuthorize, type Authorize } from './authorization.js';
import { chatAdmission, type AdmitChat } from './chat-admission.js';
import { chatRoute, type ChatRuntime, type ServeChat } from './chat-route.js';
import type { OpenSseOptions, SseTimers } from './sse-format.js';
import type { RunHost, SseSink } from './host.js';
import type { RuntimeFactory } from './runtime.js';
import type { InteractionRecord, PendingStore, StoreOptions } from '../store/types.js';
import type { EventLog } from '../store/event-log.js';
import { NotifyScheduler } from '../notify/notify-scheduler.js';
import { AnswerLinks } from '../notify/answer-links.js';
import { WebPushNotifier, webPushNotifier, type WebPushNotifierOptions } from '../notify/push/web-push-notifier.js';
import { AskUserError } from './errors.js';
import type { AnswerLinkPages } from './route-types.js';
import type { Notifier } from '../notify/notifier.js';

export interface AskUserKitOptions<Ctx = unknown, R extends RunHost = RunHost> {
  /**
   * The pending store, or a store URL (`memory`, `sqlite://<file>`, `redis://host:port`) that the kit
   * opens with `openStore` on first use and closes in `close()`. A store you pass in stays yours to close.
   * @default 'memory'
   */
  store?: PendingStore | string;
  /** Options for `openStore` when `store` is a URL (`now` defaults to the kit's clock). @default {} */
  storeOptions?: StoreOptions;
  /** Lifetime of a question before it expires. @default 1_800_000 (30 minutes) */
  ttlMs?: number;
  /** Path prefix of the routes: `${prefix}/chat/continue`, `${prefix}/interactions/pending`. @default '/api' */
  prefix?: string;
  /**
   * Binds a session to the caller, for chat, continue and pending: resolve `false` to refuse with 403
   * `forbidden`. `ctx` is what the adapter has for a request (Koa `Context`, Express `Request`, Hono
   * `Context`, a Fetch `Request`): type it, and the kit only fits that adapter. Required;
   * `allowAnyCaller` is the explicit opt-out for tests and local demos (logged once when first used).
   */
  authorize: Authorize<Ctx>;
  /**
   * Front-end origins besides the server's own that may POST continue (a browser's `Origin`); any other
   * origin, or a `Sec-Fetch-Site` of `cross-site`/`same-site` without an allowed Origin, gets 403.
   * @default []
   */
  allowedOrigins?: readonly string[];
  /** Audit sink (docs/protocol.md §8); never receives free text. @default one JSON line per entry on stdout */
  logger?: AuditLogger;
  /** Interval of the SSE `: ping` comment, ms; 0 turns it off. @default 15000 */
  heartbeatMs?: number;
  /**
   * The runtime that runs the agent and continues a paused run, built by this call from the kit's store
   * and coordinator: `agentRuntime({ client, model, tools })` from `ask-user-kit/plugin/loop`. It is
   * `kit.runtime` afterwards and closes with the kit.
   */
  runtime?: RuntimeFactory<R>;
  /** A RunHost of your own instead of a runtime. @default the in-process host (see `waitForAnswer`) */
  host?: RunHost;
  /** Clock in epoch ms, for tests. @default Date.now */
  now?: () => number;
  /** Close questions as `expired` with an in-process timer at `expiresAt` (others close on next touch). @default true */
  expiryTimers?: boolean;
  /**
   * Errors no request is waiting for (a failed `host.closed`, a resume that threw mid-stream).
   * @default `ctx.app.emit('error', err, ctx)` when there is a ctx, else `console.error`
   */
  onError?: (err: unknown) => void;
  /** Timer functions of the SSE heartbeat, for tests. @default the global timers */
  sseTimers?: SseTimers;
  /**
   * Notifiers that reach a user who is away (docs/protocol.md §13): each runs once per card that waited
   * `notifyAfterMs` without an answer, once across every instance sharing the store. The kit's own:
   * `webhookNotifier` (Standard Webhooks) and `webPushNotifier`. @default []
   */
  notifiers?: readonly Notifier[];
  /** How long a card waits before its notifiers run; 0 = at once. @default 30000 */
  notifyAfterMs?: number;
  /**
   * One-card answer links (§13): `<publicUrl>/answer/<token>` opens a page with that card alone, answered
   * without the owner's credentials. On: notifications carry `answerUrl`, `kit.answerLink()` makes one, and
   * the routes serve the page at `/answer/<token>` (whatever the prefix). `widgetScript` is where the page
   * loads `<ask-user-card>` from (the standalone bundle as you serve it). @default off
   */
  answerLinks?: { publicUrl: string; widgetScript: string; locale?: 'zh-CN' | 'en' };
  /**
   * Web Push (§13): the `web-push` notifier joins `notifiers`, and the routes serve
   * `{prefix}/push/subscriptions` (POST, DELETE) and `{prefix}/push/vapid-public-key`. Without VAPID keys
   * the first instance generates a pair and keeps it in the store. @default off
   */
  webPush?: WebPushNotifierOptions | WebPushNotifier;
}

/** What an adapter calls per request: the routes with this request's caller context and SSE opener. */
export type ServeRoutes<Ctx> = (req: RouteRequest, ctx: Ctx, openSse: () => SseSink) => Promise<RouteResult>;

export interface AskUserKit<Ctx = unknown, R extends RunHost = RunHost> {
  /** The runtime built from `options.runtime` (the agent loop: `kit.runtime.chat(...)`), else undefined. */
  readonly runtime: R | undefined;
  /**
   * The continue and pending routes for an adapter (`koaRoutes(kit)`, `expressRoutes(kit)`,
   * `fetchRoutes(kit)`). Throws without an `authorize` policy; logs once when it is `allowAnyCaller`.
   */
  serveRoutes(): ServeRoutes<Ctx>;
  /**
   * `POST /api/chat` for an adapter (`koaChat(kit)`, `expressChat(kit)`, `honoChat(kit)`, `fetchChat(kit)`):
   * the cross-site rule, the body, then the runtime's `chat`. Throws when the kit has no runtime with `chat`.
   */
  serveChat(): ServeChat<Ctx>;
  /** The chat's door a runtime calls first: session, message and caller checked, refusals audited (400/403). */
  readonly admitChat: AdmitChat;
  /** Heartbeat and timers for the chat streams adapters open. */
  readonly sseOptions: OpenSseOptions;
  /** Store an already valid question (not from a model's tool call, e.g. an MCP elicitation) and announce it. */
  ask(form: AskUserForm, context: AskContext): Promise<{ record: InteractionRecord; event: UserInputRequired }>;
  /** Split a turn's tool calls, ask the first valid `ask_user`, and say whether the run must pause. */
  intercept<C extends ToolCallLike>(toolCalls: readonly C[], context: InterceptContext): Promise<InterceptResult<C>>;
  /** Close the session's open question before a new user message runs: `superseded` (or `expired`). */
  supersede(sessionId: string): Promise<InteractionRecord | undefined>;
  /** Close the session's question as `expired` if it is past `expiresAt`. */
  expireDue(sessionId: string): Promise<InteractionRecord | undefined>;
  /** Audit a resolution whose claiming process died before its audit line (used by a loop's roll-forward). */
  auditRecovered(record: InteractionRecord): void;
  /**
   * A one-card answer link to a waiting card (§13): `<publicUrl>/answer/<token>`, good until the card
   * closes. Needs `answerLinks`; rejects with `not_found` when the card does not wait.
   */
  answerLink(requestId: string): Promise<string>;
  /** `supersede` for a runtime that writes the closed card's ToolResult itself: the host's `closed` is not called. */
  closeOpen(sessionId: string): ReturnType<Coordinator['closeOpen']>;
  /** The stop button on an open card: claim it as `cancelled` (the runtime writes its ToolResult). */
  cancelOpen(sessionId: string): ReturnType<Coordinator['cancelOpen']>;
  /** The sessions' event log (contract §11): the store's, or one in this process for a store without one. */
  readonly log: EventLog;
  /** Close one question without an answer; `undefined` when it was already closed. */
  closeInteraction(requestId: string, status: CloseStatus): Promise<InteractionRecord | undefined>;
  /** In-process loops: pause until the question is answered. Throws when a custom `host` is configured. */
  waitForAnswer(requestId: string, signal?: AbortSignal): Promise<InProcessAnswer>;
  readonly store: PendingStore;
  readonly host: RunHost;
  readonly ttlMs: number;
  readonly prefix: string;
  /** Stop timers, reject in-process waiters, and close the store if the kit opened it. */
  close(): Promise<void>;
}

export const DEFAULT_TTL_MS = 30 * 60 * 1000;
export const DEFAULT_HEARTBEAT_MS = 15_000;
export const DEFAULT_NOTIFY_AFTER_MS = 30_000;

const defaultOnError = (err: unknown) => console.error('[ask-user-kit]', err);

/** With a `runtime`: `kit.runtime` is that runtime (the agent loop). */
export function createAskUserKit<Ctx = unknown, R extends RunHost = RunHost>(
  options: AskUserKitOptions<Ctx, R> & { runtime: RuntimeFactory<R> },
): AskUserKit<Ctx, R> & { readonly runtime: R };
export function createAskUserKit<Ctx = unknown>(options: AskUserKitOptions<Ctx>): AskUserKit<Ctx>;
export function createAskUserKit<Ctx = unknown, R extends RunHost = RunHost>(options: AskUserKitOptions<Ctx, R>): AskUserKit<Ctx, R> {
  const {
    store: storeOption = 'memory',
    storeOptions = {},
    ttlMs = DEFAULT_TTL_MS,
    prefix = '/api',
    authorize,
    allowedOrigins = [],
    logger = consoleAuditLogger(),
    heartbeatMs = DEFAULT_HEARTBEAT_MS,
    now = Date.now,
    expiryTimers = true,
    onError = defaultOnError,
    sseTimers,
    notifiers = [],
    notifyAfterMs = DEFAULT_NOTIFY_AFTER_MS,
    answerLinks: linkOptions,
    webPush,
  } = options;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  if (!Number.isFinite(heartbeatMs) || heartbeatMs < 0)
    throw new TypeError(`heartbeatMs must be 0 (off) or a positive number of milliseconds, got ${heartbeatMs}`);
  if (prefix !== '' && !prefix.startsWith('/')) throw new TypeError(`prefix must be '' or start with '/', got ${JSON.stringify(prefix)}`);

  // Checked before anything is opened: without a policy every entry would be open to anyone.
  const policy = requireAuthorize(authorize as Authorize<Ctx> | undefined);
  const warnOnce = anyCallerWarning(policy, (message) => console.warn(message));
  const warnedPolicy = () => {
    warnOnce();
    return policy;
  };
  const ownsStore = typeof storeOption === 'string';
  const store = typeof storeOption === 'string' ? lazyStore(storeOption, { now, ...storeOptions }) : storeOption;
  if (options.runtime && options.host)
    throw new TypeError('give createAskUserKit a `runtime` or a `host`, not both: the runtime is the host');
  const inProcess: InProcessHost | undefined =
    options.host || options.runtime ? undefined : createInProcessHost({ store, onError: (e) => onError(e) });
  // The runtime is built below from the coordinator, which calls it back as its host: bound once, here.
  let runtime: R | undefined;
  const host: RunHost = options.host ??
    inProcess ?? {
      isResumable: (record) => runtime!.isResumable(record),
      resume: (context) => runtime!.resume(context),
      closed: (context) => runtime!.closed(context),
    };
  const audit = safeAuditLogger(logger, (e) => onError(e));
  const admitChat = chatAdmission({ authorize: warnedPolicy as () => Authorize<never>, audit, now });
  const links = linkOptions ? new AnswerLinks(store, linkOptions, now) : undefined;
  const answerPages: AnswerLinkPages | undefined =
    links && linkOptions ? { links, widgetScript: linkOptions.widgetScript, locale: linkOptions.locale ?? 'zh-CN' } : undefined;
  const push = webPush === undefined ? undefined : webPush instanceof WebPushNotifier ? webPush : webPushNotifier(webPush);
  const notify = new NotifyScheduler({
    store,
    notifiers: push ? [...notifiers, push] : notifiers,
    afterMs: notifyAfterMs,
    now,
    onError: (e) => onError(e),
    ...(links ? { answerUrl: (record: InteractionRecord) => links.linkFor(record) } : {}),
  });
  const coordinator = new Coordinator({ store, host, audit, admitChat, ttlMs, now, expiryTimers, onError: (e) => onError(e), notify });
  runtime = options.runtime?.(coordinator);
  // What a runtime offers of §11 (numbered continues, follow, stop) the forwarding host offers too.
  if (runtime && host !== inProcess && !options.host) {
    const offered = runtime as RunHost;
    if (offered.streamOf) host.streamOf = (record) => offered.streamOf!(record);
    if (offered.inFlight) host.inFlight = (sessionId) => offered.inFlight!(sessionId);
    if (offered.stop) host.stop = (sessionId) => offered.stop!(sessionId);
  }
  const normalizedPrefix = prefix.replace(/\/+$/, '');
  let serve: ServeRoutes<Ctx> | undefined;
  let serveChat: ServeChat<Ctx> | undefined;
  const sseOptions: OpenSseOptions = { heartbeatMs, ...(sseTimers ? { timers: sseTimers } : {}) };

  return {
    serveRoutes() {
      if (serve) return serve;
      warnedPolicy();
      const handle = createRoutes({
        store,
        host,
        coordinator,
        audit,
        prefix: normalizedPrefix,
        allowedOrigins,
        now,
        onError,
        ...(answerPages ? { answerLinks: answerPages } : {}),
        ...(push ? { push } : {}),
      });
      serve = (req, ctx, openSse) => handle(req, { authorized: (sessionId) => policy(ctx, sessionId), openSse });
      return serve;
    },
    serveChat() {
      if (serveChat) return serveChat;
      const chat = (runtime as Partial<ChatRuntime> | undefined)?.chat;
      if (typeof chat !== 'function') {
        throw new TypeError(
          'serveChat() needs a runtime with chat: createAskUserKit({ runtime: agentRuntime({ client, model, tools }) }) (or aiSdkRuntime)',
        );
      }
      warnedPolicy();
      serveChat = chatRoute<Ctx>({ runtime: runtime as unknown as ChatRuntime, audit, allowedOrigins, now });
      return serveChat;
    },
    // The coordinator's methods, as the kit's own.
    admitChat,
    intercept: (toolCalls, context) => coordinator.intercept(toolCalls, context),
    ask: (form, context) => coordinator.ask(form, context),
    supersede: (sessionId) => coordinator.supersede(sessionId),
    expireDue: (sessionId) => coordinator.expireDue(sessionId),
    closeInteraction: (requestId, status) => coordinator.closeInteraction(requestId, status),
    cancelOpen: (sessionId) => coordinator.cancelOpen(sessionId),
    closeOpen: (sessionId) => coordinator.closeOpen(sessionId),
    log: coordinator.log,
    auditRecovered: (record) => coordinator.auditRecovered(record),
    async answerLink(requestId) {
      if (!links) throw new TypeError('answerLink needs answer links on: createAskUserKit({ answerLinks: { publicUrl, widgetScript } })');
      const record = await store.get(requestId);
      if (!record || record.status !== 'pending') throw new AskUserError('not_found', 'No waiting card has this requestId.');
      return links.linkFor(record);
    },
    sseOptions,
    runtime,
    waitForAnswer(requestId, signal) {
      if (!inProcess) {
        return Promise.reject(
          new TypeError('waitForAnswer needs the in-process host; this kit was given its own `host`, which resumes runs itself'),
        );
      }
      return inProcess.waitForAnswer(requestId, signal);
    },
    store,
    host,
    ttlMs,
    prefix: normalizedPrefix,
    async close() {
      coordinator.close();
      await notify.close();
      inProcess?.abortAll();
      await (runtime as { close?: () => Promise<void> } | undefined)?.close?.();
      if (ownsStore) await store.close();
    },
  };
}
