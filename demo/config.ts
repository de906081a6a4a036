/**
 * The demo server's environment (docs/protocol.md §7), read and checked in one place so a wrong value fails at
 * startup with a message naming the variable, not later inside a request.
 */
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
  };
}
