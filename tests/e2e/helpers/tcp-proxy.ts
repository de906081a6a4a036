/**
 * A loopback TCP proxy between the browser and the demo server, so a test can make the server's side of
 * the network fail: `dropAll()` destroys every live connection (a stream in flight breaks off the way a
 * dying load balancer breaks it), and `refuse()` turns new connections away until `accept()`. The browser
 * sees nothing but sockets closing; the server sees its clients leave.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: what the page opens instead of the server's own URL. */
  readonly url: string;
  /** Connections accepted so far (each may carry several requests: keep-alive). */
  readonly accepted: number;
  /** Connections destroyed by `dropAll`. */
  readonly dropped: number;
  /** Destroys every live connection on both sides; returns how many there were. */
  dropAll(): number;
  /** New connections are closed as soon as they open, until `accept()`. */
  refuse(): void;
  accept(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const live = new Set<{ client: Socket; upstream: Socket }>();
  let refusing = false;
  let accepted = 0;
  let dropped = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    if (refusing) {
      // A reset, not a clean close: the browser takes it as a network failure at once.
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream };
    live.add(pair);
    const end = () => {
      live.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // Errors are the point of this proxy (resets on purpose): each one just ends the pair.
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const dropAll = () => {
    const n = live.size;
    for (const { client, upstream } of live) {
      // The browser's side is reset, so its reader fails at once instead of waiting on a half-closed socket.
      client.resetAndDestroy();
      upstream.destroy();
    }
    live.clear();
    dropped += n;
    return n;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get dropped() {
      return dropped;
    },
    dropAll,
    refuse: () => void (refusing = true),
    accept: () => void (refusing = false),
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
