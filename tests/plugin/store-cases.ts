/**
 * The backends route tests run against: memory always, a temp SQLite file, and a real redis-server.
 * Each app gets its own namespace, so one redis-server and one SQLite file serve a whole test file.
 */
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../plugin/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import type { StoreCase } from './harness.js';

const ns = () => `t${randomBytes(6).toString('hex')}`;

/** Call at the top level of a test file; registers before/after hooks for the shared servers. */
export function storeCases(): StoreCase[] {
  let redis: RedisServer | undefined;
  let dir: TempDir | undefined;
  before(async () => {
    dir = await makeTempDir('ask-user-routes-');
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
    await dir?.remove();
  });
  return [
    { name: 'memory', open: (now) => openStore('memory', { now }) },
    {
      name: 'sqlite',
      open: (now) => openStore(`sqlite://${dir!.file('routes.db')}`, { now, namespace: ns() }),
      shared: () => sharedCase(`sqlite://${dir!.file('routes.db')}`),
    },
    { name: 'redis', open: (now) => openStore(redis!.url, { now, namespace: ns() }), shared: () => sharedCase(redis!.url) },
  ];
}

/** A case whose every `open` reaches the same data: two servers built on it share one store. */
function sharedCase(url: string): StoreCase {
  const namespace = ns();
  return { name: `${url} shared`, open: (now) => openStore(url, { now, namespace }) };
}
