/**
 * A Chat Completions endpoint that costs next to nothing, so a cycle's time is the server's own: the first
 * call of a run answers with one `ask_user` tool call (or, for the approval benchmark's messages, one or two
 * calls of its tool that needs approval), the call after the answer with a short text, both streamed as the
 * real API streams them. `hold` keeps new requests waiting, for holding chat streams open.
 * With `slow` set, a run whose message is SLOW_MESSAGE gets a text answer instead, in `chunks` parts
 * `gapMs` apart: a run that streams for a while, for following it live from another instance.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QUESTION_ARGUMENTS } from './bench-kit.js';
import { APPROVAL_ARGUMENTS, APPROVAL_TOOL_NAME, approvalCallsFor } from './approval-kit.js';

let calls = 0;

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id, object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The whole streamed answer to a request whose last message is `last`. */
export function streamedAnswer(last: { role?: string; content?: unknown } | undefined): string {
  const id = `chatcmpl-${++calls}`;
  const head = chunk(id, { role: 'assistant', content: '' });
  if (last?.role === 'tool') return `${head}${chunk(id, { content: 'Done as you chose.' })}${chunk(id, {}, 'stop')}data: [DONE]\n\n`;
  const approvals = last?.role === 'user' ? approvalCallsFor(last.content) : 0;
  const toolCalls =
    approvals > 0
      ? Array.from({ length: approvals }, (_, index) => ({
          index,
          id: `call_${calls}_${index}`,
          type: 'function',
          function: { name: APPROVAL_TOOL_NAME, arguments: JSON.stringify(APPROVAL_ARGUMENTS) },
        }))
      : [{ index: 0, id: `call_${calls}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } }];
  return `${head}${chunk(id, { tool_calls: toolCalls })}${chunk(id, {}, 'tool_calls')}data: [DONE]\n\n`;
}

const lastMessageOf = (body: string): { role?: string; content?: unknown } | undefined =>
  (JSON.parse(body) as { messages?: Array<{ role?: string; content?: unknown }> }).messages?.at(-1);

/** The user message that asks the model for a slow text answer (see `slow`). */
export const SLOW_MESSAGE = 'Tell me slowly.';

/** A `fetch` for the `openai` client that answers in-process: seeding questions without a socket per call. */
export const inProcessModelFetch = async (_url: unknown, init?: { body?: unknown }): Promise<Response> =>
  new Response(streamedAnswer(lastMessageOf(String(init?.body ?? '{}'))), { headers: { 'content-type': 'text/event-stream' } });

/** A text answer in parts, one every `gapMs`, each its own write. */
function trickle(res: ServerResponse, { chunks, gapMs }: { chunks: number; gapMs: number }): void {
  const id = `chatcmpl-${++calls}`;
  res.write(chunk(id, { role: 'assistant', content: '' }));
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(chunk(id, { content: `part ${++sent} ` }));
    if (sent < chunks) return;
    clearInterval(timer);
    res.end(`${chunk(id, {}, 'stop')}data: [DONE]\n\n`);
  }, gapMs);
}

export interface InstantModel {
  baseURL: string;
  /** Requests answered so far. */
  readonly answered: number;
  /** Requests waiting while `hold` is on. */
  readonly held: number;
  hold(on: boolean): void;
  close(): Promise<void>;
}

export interface InstantModelOptions {
  /** How a SLOW_MESSAGE run is answered: text in `chunks` parts, `gapMs` apart. */
  slow?: { chunks: number; gapMs: number };
}

export async function startInstantModel({ slow }: InstantModelOptions = {}): Promise<InstantModel> {
  let answered = 0;
  let holding = false;
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      const answer = () => {
        if (res.destroyed) return;
        answered++;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const last = lastMessageOf(body);
        if (slow && last?.role === 'user' && last.content === SLOW_MESSAGE) return void trickle(res, slow);
        res.end(streamedAnswer(last));
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
