/** Loopback ports for the throwaway servers tests start (Redis, Redis Cluster nodes, PostgreSQL, demo apps). */
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 now (another process may still take it before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` on 127.0.0.1 can be bound now. */
export const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
