/**
 * The demo server's environment (docs/protocol.md §7), read and checked in one place so a wrong value fails at
 * startup with a message naming the variable, not later inside a request.
 */
import { webhookNotifier, webPushNotifier } from 'ask-user-kit/plugin';
import { DEMO_RUNTIMES, DEMO_SERVERS, type DemoRuntime, type DemoServer } from './demo-core.js';
import type { DemoAiSdkApi } from './ai-sdk-runtime.js';

export interface DemoConfig {
  port: number;
  host: string;
  /** Unset: the embedded scripted model is started and used. */
  baseURL?: string;
  apiKey: string;
  model?: string;
  storeUrl: string;
  ttlMs: number;
  /** `persistent` (exact resume from the store) or `in-process` (the run waits in memory). */
  hostMode: 'persistent' | 'in-process';
  /** Language of the ask_user tool description. */
  locale: 'zh' | 'en';
  maxRounds: number;
  /** Keep the developer trace (`ASK_USER_TRACE=1`): raw SSE and audit lines in memory, for the session's owner. */
  trace: boolean;
  /** The framework serving page and API (`ASK_USER_SERVER`). */
  server: DemoServer;
  /** The agent runtime (`ASK_USER_RUNTIME`): the loop on Chat Completions or on the Responses API, or the AI SDK runtime. */
  runtime: DemoRuntime;
  /** The API the AI SDK runtime's model speaks (`ASK_USER_AI_SDK_API`): Chat Completions or the Responses API. */
  aiSdkApi: DemoAiSdkApi;
  /** MCP servers whose tools the model gets (`ASK_USER_MCP_URL`, comma-separated); empty: the demo's own. */
  mcpUrls: string[];
  /** How long an open card waits before the notifiers run (`ASK_USER_NOTIFY_AFTER_MS`, §13). */
  notifyAfterMs: number;
  /** A Standard Webhooks notifier (`ASK_USER_WEBHOOK_URL`, `ASK_USER_WEBHOOK_SECRET`); unset: none. */
  webhook?: { url: string; secret: string };
  /** One-card answer links (`ASK_USER_ANSWER_LINKS=1`) on this public origin (`ASK_USER_PUBLIC_URL`, else `http://HOST:PORT`). */
  answerLinks: { publicUrl?: string } | undefined;
  /** Web Push keys and contact (`ASK_USER_VAPID_*`); without keys they are generated once and kept in the store. */
  vapid: { publicKey?: string; privateKey?: string; subject?: string };
  /** Let push endpoints on loopback and private addresses through (`ASK_USER_PUSH_ALLOW_PRIVATE=1`, tests only). */
  pushAllowPrivate: boolean;
}

export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 (on) or 0 (off), got ${JSON.stringify(raw)}`);
}

/** An absolute http(s) URL, or a ConfigError naming `name` (the value is quoted only when `quote`). */
function httpUrl(name: string, raw: string, quote = true): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${name} must be an absolute http(s) URL${quote ? `, got ${JSON.stringify(raw)}` : ''}`);
  }
  return url;
}

/** The Standard Webhooks notifier's two variables: both or neither; the secret is never quoted. */
function readWebhook(env: NodeJS.ProcessEnv): DemoConfig['webhook'] {
  const url = env.ASK_USER_WEBHOOK_URL || undefined;
  const secret = env.ASK_USER_WEBHOOK_SECRET || undefined;
  if (!url && !secret) return undefined;
  if (!url) throw new ConfigError('ASK_USER_WEBHOOK_SECRET is set but ASK_USER_WEBHOOK_URL is not: give both, or neither');
  if (!secret)
    throw new ConfigError('ASK_USER_WEBHOOK_URL is set but ASK_USER_WEBHOOK_SECRET is not: give both (a whsec_… secret), or neither');
  // The URL may carry a key of the receiver's in its query: it is not quoted either.
  httpUrl('ASK_USER_WEBHOOK_URL', url, false);
  try {
    webhookNotifier({ url, secret });
  } catch {
    throw new ConfigError(
      'ASK_USER_WEBHOOK_SECRET must be a whsec_ secret (base64 after the prefix), as the Standard Webhooks specification defines it',
    );
  }
  return { url, secret };
}

/** The VAPID variables: both keys or neither, a mailto: or https: subject; checked by the kit's own notifier, keys never quoted. */
function readVapid(env: NodeJS.ProcessEnv): DemoConfig['vapid'] {
  const publicKey = env.ASK_USER_VAPID_PUBLIC_KEY || undefined;
  const privateKey = env.ASK_USER_VAPID_PRIVATE_KEY || undefined;
  const subject = env.ASK_USER_VAPID_SUBJECT || undefined;
  if (subject !== undefined) {
    try {
      webPushNotifier({ vapid: { subject } });
    } catch {
      throw new ConfigError(`ASK_USER_VAPID_SUBJECT must be a mailto: or https: URI, got ${JSON.stringify(subject)}`);
    }
  }
  if (!publicKey !== !privateKey) {
    const [given, missing] = publicKey
      ? ['ASK_USER_VAPID_PUBLIC_KEY', 'ASK_USER_VAPID_PRIVATE_KEY']
      : ['ASK_USER_VAPID_PRIVATE_KEY', 'ASK_USER_VAPID_PUBLIC_KEY'];
    throw new ConfigError(
      `${given} is set but ${missing} is not: give both Web Push keys, or neither to have them generated and kept in the store`,
    );
  }
  if (publicKey && privateKey) {
    try {
      webPushNotifier({ vapid: { publicKey, privateKey } });
    } catch (err) {
      // The kit's words name what is wrong without quoting a key.
      const why = (err as Error).message.replace(/^vapid: /, '');
      throw new ConfigError(`ASK_USER_VAPID_PUBLIC_KEY and ASK_USER_VAPID_PRIVATE_KEY must be a P-256 key pair, base64url: ${why}`);
    }
  }
  return { ...(publicKey ? { publicKey } : {}), ...(privateKey ? { privateKey } : {}), ...(subject ? { subject } : {}) };
}

export function readDemoConfig(env: NodeJS.ProcessEnv = process.env): DemoConfig {
  const hostMode = env.ASK_USER_HOST ?? 'persistent';
  if (hostMode !== 'persistent' && hostMode !== 'in-process') {
    throw new ConfigError(`ASK_USER_HOST must be "persistent" or "in-process", got ${JSON.stringify(hostMode)}`);
  }
  const server = env.ASK_USER_SERVER || 'koa';
  if (!(DEMO_SERVERS as readonly string[]).includes(server)) {
    throw new ConfigError(`ASK_USER_SERVER must be one of ${DEMO_SERVERS.join(', ')}, got ${JSON.stringify(server)}`);
  }
  const runtime = env.ASK_USER_RUNTIME || 'chat';
  if (!(DEMO_RUNTIMES as readonly string[]).includes(runtime)) {
    throw new ConfigError(`ASK_USER_RUNTIME must be one of ${DEMO_RUNTIMES.join(', ')}, got ${JSON.stringify(runtime)}`);
  }
  const aiSdkApi = env.ASK_USER_AI_SDK_API || 'chat';
  if (aiSdkApi !== 'chat' && aiSdkApi !== 'responses') {
    throw new ConfigError(`ASK_USER_AI_SDK_API must be "chat" or "responses", got ${JSON.stringify(aiSdkApi)}`);
  }
  if (aiSdkApi !== 'chat' && runtime !== 'ai-sdk') {
    // Said at startup: set alone it would be ignored, and the demo would not run what was asked for.
    throw new ConfigError(`ASK_USER_AI_SDK_API applies to ASK_USER_RUNTIME=ai-sdk only (ASK_USER_RUNTIME is ${JSON.stringify(runtime)})`);
  }
  const mcpUrls = (env.ASK_USER_MCP_URL ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const url of mcpUrls) {
    if (!/^https?:\/\/[^\s]+$/.test(url)) throw new ConfigError(`ASK_USER_MCP_URL must list http(s) URLs, got ${JSON.stringify(url)}`);
  }
  const locale = env.ASK_USER_LOCALE ?? 'zh';
  if (locale !== 'zh' && locale !== 'en') throw new ConfigError(`ASK_USER_LOCALE must be "zh" or "en", got ${JSON.stringify(locale)}`);
  const baseURL = env.OPENAI_BASE_URL || undefined;
  const answerLinks = flag(env, 'ASK_USER_ANSWER_LINKS');
  const publicUrl = env.ASK_USER_PUBLIC_URL || undefined;
  const webhook = readWebhook(env);
  if (publicUrl !== undefined) {
    httpUrl('ASK_USER_PUBLIC_URL', publicUrl);
    // Said at startup: set alone it would be ignored.
    if (!answerLinks) throw new ConfigError('ASK_USER_PUBLIC_URL applies with ASK_USER_ANSWER_LINKS=1 only (answer links are off)');
  }
  return {
    port: integer(env, 'PORT', 3000, 0),
    host: env.HOST || '127.0.0.1',
    ...(baseURL ? { baseURL } : {}),
    apiKey: env.OPENAI_API_KEY || 'not-needed',
    ...(env.OPENAI_MODEL ? { model: env.OPENAI_MODEL } : {}),
    storeUrl: env.ASK_USER_STORE || 'sqlite://.data/ask-user.db',
    ttlMs: integer(env, 'ASK_USER_TTL_MS', 30 * 60 * 1000, 1),
    hostMode,
    locale,
    maxRounds: integer(env, 'ASK_USER_MAX_ROUNDS', 8, 1),
    trace: flag(env, 'ASK_USER_TRACE'),
    server: server as DemoServer,
    runtime: runtime as DemoRuntime,
    aiSdkApi,
    mcpUrls,
    notifyAfterMs: integer(env, 'ASK_USER_NOTIFY_AFTER_MS', 30_000, 0),
    ...(webhook ? { webhook } : {}),
    answerLinks: answerLinks ? (publicUrl ? { publicUrl } : {}) : undefined,
    vapid: readVapid(env),
    pushAllowPrivate: flag(env, 'ASK_USER_PUSH_ALLOW_PRIVATE'),
  };
}

/** The origin answer links are built on when ASK_USER_PUBLIC_URL is unset: where the demo listens. */
export function listeningOrigin(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
