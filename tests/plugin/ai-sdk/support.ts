/**
 * A real HTTP server for the AI SDK runtime's tests: the kit's routes on Koa, a chat route that runs
 * `kit.runtime.chat`, and helpers that speak only HTTP to it and parse the raw SSE bytes.
 */
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, type PendingStore } from '../../../plugin/index.js';
import { serveKoaChat } from '../../helpers/koa-chat-server.js';
import { aiSdkRuntime, type AiSdkRuntime, type AiSdkRuntimeOptions } from '../../../plugin/ai-sdk/index.js';
import { parseSse, type SseFrame } from '../harness.js';

export interface AiServer {
  url: string;
  kit: ReturnType<typeof createAskUserKit<any, AiSdkRuntime>>;
  runtime: AiSdkRuntime;
  audit: ReturnType<typeof memoryAuditLogger>;
  chat(sessionId: string, message: string): Promise<SseFrame[]>;
  /** POST continue: the status, and the frames of a 200 or the JSON of a refusal. */
  answer(body: Record<string, unknown>): Promise<{ status: number; frames: SseFrame[]; json?: any }>;
  pending(sessionId: string): Promise<any>;
  close(): Promise<void>;
}

export async function startAiServer(
  store: PendingStore,
  options: AiSdkRuntimeOptions,
  kitOptions: { ttlMs?: number; expiryTimers?: boolean } = {},
): Promise<AiServer> {
  const audit = memoryAuditLogger();
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: audit,
    expiryTimers: false,
    ...kitOptions,
    runtime: aiSdkRuntime({
      onError: process.env.AI_DEBUG ? (e) => console.error(e) : () => {},
      ...options,
      settings: { maxRetries: 0, ...options.settings },
    }),
  });
  const { url, post, close } = await serveKoaChat(kit);
  return {
    url,
    kit,
    runtime: kit.runtime,
    audit,
    async chat(sessionId, message) {
      return parseSse(await (await post('/api/chat', { sessionId, message })).text()).frames;
    },
    async answer(body) {
      const res = await post('/api/chat/continue', { selections: [], customInput: '', cancelled: false, ...body });
      if (res.status !== 200) return { status: res.status, frames: [], json: await res.json() };
      return { status: 200, frames: parseSse(await res.text()).frames };
    },
    async pending(sessionId) {
      return (await fetch(`${url}/api/interactions/pending?sessionId=${encodeURIComponent(sessionId)}`)).json();
    },
    async close() {
      await close();
      await kit.close();
    },
  };
}

export const eventsOf = (frames: SseFrame[]) => frames.map((f) => f.event);
export const dataOf = (frames: SseFrame[], event: string): any[] => frames.filter((f) => f.event === event).map((f) => f.data);
