/**
 * A minimal OpenAI-compatible endpoint that answers from a scripted turn: Chat Completions
 * (`POST <base>/chat/completions`) and the Responses API (`POST <base>/responses`, responses-wire.ts),
 * streaming and not. The demo's offline assistant and the tests' programmable model both sit on it, so
 * the real `openai` SDK path runs without any outside service.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { historyProblem, responsesInputProblem } from './strict-history.js';
import { replyOptionsOf, responsesBodyToChat, turnToResponse, turnToResponseEvents } from './responses-wire.js';

import type { ChatRequestBody, ScriptedTurn, Respond } from './scripted-turn.js';

export type { ChatRequestBody, Respond, ScriptedToolCall, ScriptedTurn } from './scripted-turn.js';

export interface ChatCompletionsServer {
  /** e.g. `http://127.0.0.1:41234/v1` — what `new OpenAI({ baseURL })` takes. */
  readonly baseURL: string;
  readonly server: Server;
  close(): Promise<void>;
}

export interface ChatCompletionsServerOptions {
  respond: Respond;
  /** @default 0 (any free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Refuse with 400, as strict endpoints do, a history with an unpaired tool call or an empty assistant turn. @default true */
  strict?: boolean;
}

let callCounter = 0;
const nextCallId = () => `call_${Date.now().toString(36)}${(++callCounter).toString(36)}`;

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  // Split by code points so a streamed piece never ends inside a surrogate pair.
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** The chunks (`chat.completion.chunk` objects) a streaming provider would send for `turn`. */
export function turnToChunks(turn: ScriptedTurn, model: string): Array<Record<string, unknown>> {
  const id = `chatcmpl-${nextCallId()}`;
  const created = Math.floor(Date.now() / 1000);
  const size = Math.max(1, turn.chunkSize ?? 7);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const chunks = [chunk({ role: 'assistant', content: '' })];
  for (const p of pieces(turn.text ?? '', size)) chunks.push(chunk({ content: p }));
  const calls = (turn.toolCalls ?? []).map((c, index) => ({
    index,
    id: c.id ?? nextCallId(),
    name: c.name,
    args: pieces(typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments), size),
  }));
  // The first delta of a call carries id, type and name; later ones only the index and an arguments piece.
  const heads = calls.map((c) =>
    chunk({ tool_calls: [{ index: c.index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
  );
  const tail = (c: (typeof calls)[number], p: string) => chunk({ tool_calls: [{ index: c.index, function: { arguments: p } }] });
  if (turn.interleave) {
    chunks.push(...heads);
    const longest = Math.max(0, ...calls.map((c) => c.args.length));
    for (let i = 0; i < longest; i++) for (const c of calls) if (c.args[i] !== undefined) chunks.push(tail(c, c.args[i]!));
  } else {
    calls.forEach((c, i) => {
      chunks.push(heads[i]!);
      for (const p of c.args) chunks.push(tail(c, p));
    });
  }
  chunks.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  return chunks;
}

/** The non-streaming `chat.completion` object for `turn`. */
export function turnToCompletion(turn: ScriptedTurn, model: string): Record<string, unknown> {
  const toolCalls = (turn.toolCalls ?? []).map((c) => ({
    id: c.id ?? nextCallId(),
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    id: `chatcmpl-${nextCallId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), refusal: null },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

function sendError(res: ServerResponse, status: number, message: string, type = 'invalid_request_error', param: string | null = null) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, code: null, param } }));
}

export async function startChatCompletionsServer(options: ChatCompletionsServerOptions): Promise<ChatCompletionsServer> {
  const { respond, port = 0, host = '127.0.0.1', strict = true } = options;
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const responses = path.endsWith('/responses');
    if (req.method !== 'POST' || !(responses || path.endsWith('/chat/completions'))) {
      sendError(res, 404, `scripted model serves POST /v1/chat/completions and /v1/responses only, not ${req.method} ${path}`);
      return;
    }
    let body: ChatRequestBody;
    try {
      const json = (await readJson(req)) as Record<string, unknown>;
      body = responses ? responsesBodyToChat(json) : (json as ChatRequestBody);
    } catch {
      sendError(res, 400, 'request body is not JSON');
      return;
    }
    const refused = strict && responses ? responsesInputProblem(body) : undefined;
    if (refused) {
      sendError(res, refused.status, refused.message, 'invalid_request_error', 'input');
      return;
    }
    const problem = strict && Array.isArray(body.messages) ? historyProblem(body.messages) : undefined;
    if (problem) {
      sendError(res, 400, `invalid history: ${problem}`);
      return;
    }
    let turn: ScriptedTurn;
    try {
      turn = await respond(body);
    } catch (error) {
      sendError(res, 500, `scripted model failed: ${(error as Error).message}`, 'server_error');
      return;
    }
    if (turn.failStatus) {
      sendError(res, turn.failStatus, turn.failMessage ?? `scripted failure ${turn.failStatus}`, 'server_error', turn.failParam ?? null);
      return;
    }
    if (!body.stream) {
      if (turn.hold) await turn.hold;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(responses ? turnToResponse(turn, body.model, replyOptionsOf(body)) : turnToCompletion(turn, body.model)));
      return;
    }
    if (turn.json) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(turn.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (turn.silent) {
      res.flushHeaders();
      return; // held open until the client leaves; close() ends it
    }
    if (turn.raw) {
      for (const payload of turn.raw) res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      res.end(turn.noDone || responses ? '' : 'data: [DONE]\n\n');
      return;
    }
    if (responses) {
      const events = turnToResponseEvents(turn, body.model, turn.noDone === true, replyOptionsOf(body));
      res.write(`event: ${events[0]!.type}\ndata: ${JSON.stringify(events[0])}\n\n`);
      if (turn.hold) await turn.hold;
      for (const e of events.slice(1)) {
        if (res.destroyed) return;
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
        if (turn.pieceDelayMs && e.type === 'response.output_text.delta') await new Promise((r) => setTimeout(r, turn.pieceDelayMs));
      }
      res.end();
      return;
    }
    const chunks = turnToChunks(turn, body.model);
    // Send the opening chunks at once; a held turn then waits, so the client sees a live stream mid-flight.
    res.write(`data: ${JSON.stringify(chunks[0])}\n\n`);
    if (turn.hold) await turn.hold;
    for (const c of chunks.slice(1)) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(c)}\n\n`);
      const isText = (c.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content;
      // Only text is paced: a person watches it arrive; tool-call arguments nobody reads as they stream.
      if (turn.pieceDelayMs && isText) await new Promise((r) => setTimeout(r, turn.pieceDelayMs));
    }
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    baseURL: `http://${host}:${address.port}/v1`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
