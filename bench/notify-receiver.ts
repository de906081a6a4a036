/**
 * The webhook receiver of the notify benchmark (bench/notify.ts), in a process of its own so its CPU is not
 * the kit's: node:http on 127.0.0.1 with keep-alive, answering every POST 200 once its body is read, and
 * keeping when each delivery arrived (epoch ms, comparable with the parent's clock) by its `webhook-id`.
 * The first few deliveries after a reset are kept whole and verified with the `standardwebhooks` library
 * when the parent asks for the stats, so the check costs nothing while deliveries arrive.
 * The `whsec_` secret comes in BENCH_WEBHOOK_SECRET (not an argument, so no process list shows it). The
 * parent talks over IPC.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { epochMs } from './lib/stats.js';

export type ToReceiver =
  | { type: 'reset'; expect: number }
  /** A new count to announce `reached` at, the arrivals kept (fewer cards were asked than planned). */
  | { type: 'expect'; expect: number }
  | { type: 'stats' };
export type FromReceiver =
  | { type: 'ready'; port: number }
  | { type: 'reset' }
  /** Sent once, when `expect` deliveries have arrived since the reset. */
  | { type: 'reached'; at: number }
  | {
      type: 'stats';
      /** POSTs received since the reset. */
      deliveries: number;
      /** Per webhook-id, each arrival's time (epoch ms); more than one is a duplicate. */
      arrivals: Record<string, number[]>;
      /** Connections open at the reset (kept alive from before), opened since, and the most open at once. */
      openAtReset: number;
      connections: number;
      maxOpenConnections: number;
      /** The receiver's CPU since the reset, µs. */
      cpuUs: number;
      /** Kept deliveries whose signature the `standardwebhooks` library verified, and those it refused. */
      verified: number;
      refused: number;
      /** A kept body, to show what is sent. */
      sample?: string;
    };

const VERIFIED_SAMPLES = 20;
const secret = process.env.BENCH_WEBHOOK_SECRET ?? '';
const webhook = new Webhook(secret);

let arrivals = new Map<string, number[]>();
let deliveries = 0;
let expect = 0;
let connections = 0;
let open = 0;
let maxOpen = 0;
let openAtReset = 0;
let cpuAtReset = process.cpuUsage();
let kept: { headers: Record<string, string>; body: string }[] = [];

function onRequest(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = epochMs();
    const id = req.headers['webhook-id'];
    const key = typeof id === 'string' ? id : '(none)';
    const seen = arrivals.get(key);
    if (seen) seen.push(at);
    else arrivals.set(key, [at]);
    deliveries++;
    if (kept.length < VERIFIED_SAMPLES) {
      const headers: Record<string, string> = {};
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(req.headers[name] ?? '');
      kept.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
    }
    res.writeHead(200, { 'content-length': '0' });
    res.end();
    if (deliveries === expect) process.send?.({ type: 'reached', at } satisfies FromReceiver);
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, onRequest);
server.on('connection', (socket: Socket) => {
  connections++;
  maxOpen = Math.max(maxOpen, ++open);
  socket.once('close', () => open--);
});

function stats(): FromReceiver {
  let verified = 0;
  let refused = 0;
  for (const { headers, body } of kept) {
    try {
      webhook.verify(body, headers);
      verified++;
    } catch {
      refused++;
    }
  }
  const cpu = process.cpuUsage(cpuAtReset);
  return {
    type: 'stats',
    deliveries,
    arrivals: Object.fromEntries(arrivals),
    openAtReset,
    connections,
    maxOpenConnections: maxOpen,
    cpuUs: cpu.user + cpu.system,
    verified,
    refused,
    ...(kept[0] ? { sample: kept[0].body } : {}),
  };
}

process.on('message', (m: ToReceiver) => {
  if (m.type === 'reset') {
    arrivals = new Map();
    deliveries = 0;
    expect = m.expect;
    connections = 0;
    openAtReset = open;
    maxOpen = open;
    kept = [];
    cpuAtReset = process.cpuUsage();
    process.send?.({ type: 'reset' } satisfies FromReceiver);
  } else if (m.type === 'expect') {
    expect = m.expect;
    if (deliveries >= expect) process.send?.({ type: 'reached', at: epochMs() } satisfies FromReceiver);
  } else if (m.type === 'stats') {
    process.send?.(stats());
  }
});
// The parent went away (it finished, or was stopped): nothing is left to receive.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
});

server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies FromReceiver);
});
