/**
 * Store backends for the hardening tests, as StoreCases of the plugin harness. `storeKinds()` registers
 * the before/after hooks that start a temp dir (SQLite), a redis-server, a PostgreSQL server and a Redis
 * Cluster (one each per test file) only when asked for.
 */
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../../plugin/index.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import type { StoreCase } from '../../plugin/harness.js';

export type StoreKind = 'memory' | 'sqlite' | 'redis' | 'postgres' | 'redis-cluster';

export const namespace = () => `h${randomBytes(6).toString('hex')}`;

export interface StoreKinds {
  cases: StoreCase[];
  /** The redis-server, once `before` ran (only when 'redis' was asked for). */
  redis(): RedisServer;
  /** The PostgreSQL server, once `before` ran (only when 'postgres' was asked for). */
  postgres(): PostgresServer;
  /** The Redis Cluster, once `before` ran (only when 'redis-cluster' was asked for). */
  cluster(): RedisCluster;
  /** The temp dir, once `before` ran. */
  dir(): TempDir;
  /** The URL of a kind, for processes that open the same store (SQLite file, Redis, PostgreSQL or the cluster). */
  url(kind: Exclude<StoreKind, 'memory'>): string;
}

/**
 * Call at the top level of a test file. Each `open` gets its own namespace (on PostgreSQL a schema of its
 * own, created on open: ~40 ms against ~12 ms for an existing one, so open few); `shared()` cases share one.
 */
export function storeKinds(kinds: readonly StoreKind[], { persistRedis = false } = {}): StoreKinds {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let cluster: RedisCluster | undefined;
  let dir: TempDir | undefined;
  before(async () => {
    dir = await makeTempDir('ask-user-hardening-');
    await Promise.all([
      kinds.includes('redis') && startRedisServer({ persist: persistRedis }).then((r) => (redis = r)),
      kinds.includes('postgres') && startPostgresServer().then((p) => (postgres = p)),
      kinds.includes('redis-cluster') && startRedisCluster().then((c) => (cluster = c)),
    ]);
  });
  after(async () => {
    await Promise.all([redis?.stop(), postgres?.stop(), cluster?.stop()]);
    await dir?.remove();
  });
  const url = (kind: Exclude<StoreKind, 'memory'>) => {
    switch (kind) {
      case 'sqlite':
        return `sqlite://${dir!.file('hardening.db')}`;
      case 'redis':
        return redis!.url;
      case 'postgres':
        return postgres!.url;
      case 'redis-cluster':
        return cluster!.url;
    }
  };
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
    postgres: () => postgres!,
    cluster: () => cluster!,
    dir: () => dir!,
    url,
  };
}
