/**
 * A programmable OpenAI-compatible model for tests: a queue of scripted turns, answered in order, and a
 * record of every request body, so a test can check exactly what the model was sent (history, tools).
 */
import { startChatCompletionsServer, type ChatRequestBody, type ScriptedTurn } from '../../demo/scripted-model/chat-completions-server.js';

export type { ChatRequestBody, ScriptedTurn, ScriptedToolCall } from '../../demo/scripted-model/chat-completions-server.js';

/** A turn, or a function of the request that produces one (e.g. to echo what the model received). */
export type TurnScript = ScriptedTurn | ((body: ChatRequestBody) => ScriptedTurn);

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseURL: string;
  /** Every request body received, in order (deep copies). */
  readonly requests: ChatRequestBody[];
  /** Append turns to the queue. */
  enqueue(...turns: TurnScript[]): void;
  /** Turns still queued. */
  readonly remaining: number;
  /** Resolves once `count` requests in total have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  turns?: TurnScript[];
  /** Answer when the queue is empty. @default a turn with the text "(no scripted turn left)" */
  fallback?: TurnScript;
  port?: number;
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const { turns = [], fallback = { text: '(no scripted turn left)' }, port = 0 } = options;
  const queue: TurnScript[] = [...turns];
  const requests: ChatRequestBody[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = await startChatCompletionsServer({
    port,
    respond(body) {
      requests.push(structuredClone(body));
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const next = queue.shift() ?? fallback;
      return typeof next === 'function' ? next(body) : next;
    },
  });
  return {
    baseURL: server.baseURL,
    requests,
    enqueue: (...more) => void queue.push(...more),
    get remaining() {
      return queue.length;
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () => server.close(),
  };
}
