/**
 * The plugin loop behind a real HTTP server, for tests that drive it as a page would: the kit's routes
 * and `POST /api/chat` on Koa, the raw SSE bytes parsed by the test harness, not by the code under test.
 */
import OpenAI from 'openai';
import { allowAnyCaller, createAskUserKit, memoryAuditLogger, type PendingStore } from '../../../plugin/index.js';
import { agentRuntime, type AgentLoop, type AgentRuntimeOptions } from '../../../plugin/loop/index.js';
import { serveKoaChat } from '../../helpers/koa-chat-server.js';
import { parseSse, type SseFrame } from '../harness.js';

export interface LoopServer {
  loop: AgentLoop;
  chat(sessionId: string, message: string): Promise<SseFrame[]>;
  /** POST continue with a single-choice answer; the frames of its stream (empty on a refusal). */
  answer(sessionId: string, requestId: string, selections: string[]): Promise<{ status: number; frames: SseFrame[] }>;
  /** POST continue with an approval card's decisions (§12); the frames, or the error body on a refusal. */
  decide(
    sessionId: string,
    requestId: string,
    decisions: unknown[],
    cancelled?: boolean,
  ): Promise<{ status: number; frames: SseFrame[]; body?: any }>;
  close(): Promise<void>;
}

export async function startLoopServer(
  store: PendingStore,
  baseURL: string,
  options: Partial<AgentRuntimeOptions> = {},
): Promise<LoopServer> {
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: memoryAuditLogger(),
    expiryTimers: false,
    runtime: agentRuntime({
      client: new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 }),
      model: 'scripted-test',
      onError: process.env.LOOP_DEBUG ? (e) => console.error(e) : () => {},
      ...options,
    }),
  });
  const { post, close } = await serveKoaChat(kit);
  return {
    loop: kit.runtime,
    async chat(sessionId, message) {
      return parseSse(await (await post('/api/chat', { sessionId, message })).text()).frames;
    },
    async answer(sessionId, requestId, selections) {
      const res = await post('/api/chat/continue', { sessionId, requestId, selections, customInput: '', cancelled: false });
      return { status: res.status, frames: res.status === 200 ? parseSse(await res.text()).frames : (await res.text(), []) };
    },
    async decide(sessionId, requestId, decisions, cancelled = false) {
      const res = await post('/api/chat/continue', { sessionId, requestId, decisions, cancelled });
      if (res.status === 200) return { status: 200, frames: parseSse(await res.text()).frames };
      return { status: res.status, frames: [], body: await res.json() };
    },
    async close() {
      await close();
      await kit.close();
    },
  };
}

/** The data of the first frame named `event`. */
export const frame = (frames: readonly SseFrame[], event: string): any => frames.find((f) => f.event === event)?.data;
