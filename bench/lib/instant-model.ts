/**
 * A Chat Completions endpoint that costs next to nothing, so a cycle's time is the server's own: the first
 * call of a run answers with one `ask_user` tool call, the call after the answer with a short text, both
 * streamed as the real API streams them. `hold` keeps new requests waiting, for holding chat streams open.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QUESTION_ARGUMENTS } from './bench-kit.js';

let calls = 0;

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id, object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The whole streamed answer to a request whose last message has role `lastRole`. */
export function streamedAnswer(lastRole: string | undefined): string {
  const id = `chatcmpl-${++calls}`;
  const head = chunk(id, { role: 'assistant', content: '' });
  if (lastRole === 'tool') return `${head}${chunk(id, { content: 'Done as you chose.' })}${chunk(id, {}, 'stop')}data: [DONE]\n\n`;
  const call = { index: 0, id: `call_${calls}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } };
  return `${head}${chunk(id, { tool_calls: [call] })}${chunk(id, {}, 'tool_calls')}data: [DONE]\n\n`;
}

const lastRoleOf = (body: string): string | undefined =>
  (JSON.parse(body) as { messages?: Array<{ role?: string }> }).messages?.at(-1)?.role;

/** A `fetch` for the `openai` client that answers in-process: seeding questions without a socket per call. */
export const inProcessModelFetch = async (_url: unknown, init?: { body?: unknown }): Promise<Response> =>
  new Response(streamedAnswer(lastRoleOf(String(init?.body ?? '{}'))), { headers: { 'content-type': 'text/event-stream' } });

export interface InstantModel {
  baseURL: string;
  /** Requests answered so far. */
  readonly answered: number;
  /** Requests waiting while `hold` is on. */
  readonly held: number;
  hold(on: boolean): void;
  close(): Promise<void>;
}

export async function startInstantModel(): Promise<InstantModel> {
  let answered = 0;
  let holding = false;
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const answer = () => {
        if (res.destroyed) return;
        answered++;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(streamedAnswer(lastRoleOf(Buffer.concat(parts).toString('utf8'))));
      };
      if (holding) waiting.push(answer);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get answered() {
      return answered;
    },
    get held() {
      return waiting.length;
    },
    hold(on) {
      holding = on;
      if (!on) for (const answer of waiting.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
