/**
 * Store backends for the hardening tests, as StoreCases of the plugin harness. `storeKinds()` registers
 * the before/after hooks that start a temp dir (SQLite) and a redis-server only when asked for.
 */
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../../plugin/index.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import type { StoreCase } from '../../plugin/harness.js';

export type StoreKind = 'memory' | 'sqlite' | 'redis';

export const namespace = () => `h${randomBytes(6).toString('hex')}`;

export interface StoreKinds {
  cases: StoreCase[];
  /** The redis-server, once `before` ran (only when 'redis' was asked for). */
  redis(): RedisServer;
  /** The temp dir, once `before` ran. */
  dir(): TempDir;
  /** The URL of a kind, for processes that open the same store (SQLite file or Redis). */
  url(kind: Exclude<StoreKind, 'memory'>): string;
}

/** Call at the top level of a test file. Each `open` gets its own namespace; `shared()` cases share one. */
export function storeKinds(kinds: readonly StoreKind[], { persistRedis = false } = {}): StoreKinds {
  let redis: RedisServer | undefined;
  let dir: TempDir | undefined;
  before(async () => {
    dir = await makeTempDir('ask-user-hardening-');
    if (kinds.includes('redis')) redis = await startRedisServer({ persist: persistRedis });
  });
  after(async () => {
    await redis?.stop();
    await dir?.remove();
  });
  const url = (kind: Exclude<StoreKind, 'memory'>) => (kind === 'sqlite' ? `sqlite://${dir!.file('hardening.db')}` : redis!.url);
  const shared = (kind: Exclude<StoreKind, 'memory'>): StoreCase => {
    const ns = namespace();
    return { name: `${kind} shared`, open: (now) => openStore(url(kind), { now, namespace: ns }) };
  };
  const cases = kinds.map((kind): StoreCase =>
    kind === 'memory'
      ? { name: 'memory', open: (now) => openStore('memory', { now }) }
      : { name: kind, open: (now) => openStore(url(kind), { now, namespace: namespace() }), shared: () => shared(kind) },
  );
  return {
    cases,
    redis: () => redis!,
    dir: () => dir!,
    url,
  };
}
