/**
 * The browser's side of a question, over node:http with kept-alive sockets (cheaper than fetch, so the
 * load generator takes less of the two cores from the server): POST /api/chat, read to `done`, answer the
 * card on POST /api/chat/continue, read to `done`. Every request carries one fixed owner cookie.
 */
import { Agent, request } from 'node:http';
import { epochMs } from './stats.js';

const OWNER_COOKIE = 'ask_user_owner=bench-browser-identity-0123456789abcdefghij';
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

interface Posted {
  status: number;
  body: string;
}

export function post(port: number, path: string, body: unknown, signal?: AbortSignal): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        ...(signal ? { signal } : {}),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), cookie: OWNER_COOKIE },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The data of the first `event` frame in an SSE text. */
function eventData<T>(text: string, event: string): T | undefined {
  const at = text.indexOf(`event: ${event}\n`);
  if (at < 0) return undefined;
  const line = text.slice(at).split('\n')[1] ?? '';
  return line.startsWith('data: ') ? (JSON.parse(line.slice(6)) as T) : undefined;
}

/** A card as the client reads it from `user_input_required`: a question, or an approval card (§12). */
export interface Card {
  id: string;
  mode: string;
  options?: Array<{ id: string }>;
  approvals?: Array<{ toolCallId: string }>;
}

/** POST /api/chat with `message` until the card and `done`. */
export async function openCard(port: number, sessionId: string, message = 'Migrate the schema.'): Promise<Card> {
  const chat = await post(port, '/api/chat', { sessionId, message });
  const card = eventData<Card>(chat.body, 'user_input_required');
  if (chat.status !== 200 || !card || !eventData(chat.body, 'done')) throw new Error(`chat: ${chat.status} ${chat.body.slice(0, 300)}`);
  return card;
}

/**
 * POST /api/chat/continue answering `card` until `done` (completed): a question with its first option (or
 * a typed "yes"), an approval card with `decision` for every call on it. The stream's text.
 */
export async function answerCard(port: number, sessionId: string, card: Card, decision: 'approve' | 'deny' = 'approve'): Promise<string> {
  let answer: Record<string, unknown>;
  if (card.mode === 'approval') {
    const decisions = (card.approvals ?? []).map(({ toolCallId }) => ({ toolCallId, decision }));
    answer = { sessionId, requestId: card.id, decisions, cancelled: false };
  } else {
    const choice = ['single', 'multiple', 'toggle'].includes(card.mode);
    answer = {
      sessionId,
      requestId: card.id,
      selections: choice ? [card.options![0]!.id] : [],
      customInput: choice ? '' : 'yes',
      cancelled: false,
    };
  }
  const resumed = await post(port, '/api/chat/continue', answer);
  const done = eventData<{ reason: string }>(resumed.body, 'done');
  if (resumed.status !== 200 || done?.reason !== 'completed') throw new Error(`continue: ${resumed.status} ${resumed.body.slice(0, 300)}`);
  return resumed.body;
}

/** One question asked and answered; continue goes to `continuePort` (another instance, if it differs). */
export async function cycle(chatPort: number, continuePort: number, sessionId: string): Promise<void> {
  await answerCard(continuePort, sessionId, await openCard(chatPort, sessionId));
}

export interface LoadResult {
  cycles: number;
  errors: number;
  seconds: number;
  firstError?: string;
}

export interface LoadOptions {
  /** Which instance serves chat and continue of the n-th cycle. */
  route: (n: number) => { chat: number; continue: number };
  concurrency: number;
  seconds: number;
  maxCycles: number;
  prefix: string;
  /** What one cycle is. @default `cycle`: one question asked and answered */
  run?: (chatPort: number, continuePort: number, sessionId: string) => Promise<void>;
}

/** Cycles back to back on `concurrency` workers until the time or the count runs out. */
export async function load({ route, concurrency, seconds, maxCycles, prefix, run = cycle }: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  let next = 0;
  let cycles = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (next < maxCycles && performance.now() - started < seconds * 1000) {
      const n = next++;
      const to = route(n);
      try {
        await run(to.chat, to.continue, `${prefix}-${n}`);
        cycles++;
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
        // A server that refuses everything must not turn the loop into a busy spin.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { cycles, errors, seconds: (performance.now() - started) / 1000, ...(firstError ? { firstError } : {}) };
}

/** A chat stream held open: resolves when it ends; `abort` drops it. */
export function openChat(port: number, sessionId: string, message = 'Migrate the schema.') {
  const controller = new AbortController();
  const ended = post(port, '/api/chat', { sessionId, message }, controller.signal).catch(() => undefined);
  return { ended, abort: () => controller.abort() };
}

/** A frame as the client read it: its id (none for a frame without one) and when its bytes arrived (epochMs). */
export interface TimedFrame {
  id?: string;
  event: string;
  at: number;
}

export interface OpenStream {
  /** The status, once the response's headers are in; `at` is when (epochMs). */
  headers: Promise<{ status: number; at: number }>;
  /** Every frame read, once the stream ended or was dropped. */
  ended: Promise<TimedFrame[]>;
  abort(): void;
}

/**
 * An SSE request read as it arrives: each frame stamped with the time its bytes came off the socket, so a
 * frame's delay can be set against when the server wrote it. A POST when `body` is given, else a GET.
 */
export function openStream(port: number, path: string, body?: unknown): OpenStream {
  const controller = new AbortController();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const frames: TimedFrame[] = [];
  let headersSeen!: (value: { status: number; at: number }) => void;
  const headers = new Promise<{ status: number; at: number }>((resolve) => (headersSeen = resolve));
  const ended = new Promise<TimedFrame[]>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: payload === undefined ? 'GET' : 'POST',
        agent,
        signal: controller.signal,
        headers: {
          cookie: OWNER_COOKIE,
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        headersSeen({ status: res.statusCode ?? 0, at: epochMs() });
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = epochMs();
          text += chunk;
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const lines = block.split('\n');
            const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
            const event = field('event');
            const id = field('id');
            if (event) frames.push({ ...(id ? { id } : {}), event, at });
          }
        });
        res.on('end', () => resolve(frames));
        res.on('error', () => resolve(frames));
      },
    );
    req.on('error', () => {
      headersSeen({ status: 0, at: epochMs() });
      resolve(frames);
    });
    req.end(payload);
  });
  return { headers, ended, abort: () => controller.abort() };
}
