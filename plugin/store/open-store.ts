/**
 * One factory for every backend, chosen by URL, so the demo's `ASK_USER_STORE` and the tests build stores
 * the same way.
 */
import { createKeyedStore, resolveOptions } from './keyed-store.js';
import { StoreError } from './store-errors.js';
import { createMemoryBackend } from './memory-backend.js';
import { parseStoreUrl } from './store-url.js';
import type { PendingStore, StoreOptions } from './types.js';

/**
 * Opens a store for `memory`, `sqlite://<file path>`, `redis://host:port[/db]` (`rediss://` for TLS),
 * `redis+cluster://host:port,host:port` (Redis Cluster, any of its nodes) or
 * `postgres://user:password@host:port/db` (`postgresql://` too; pg's query parameters such as `sslmode` apply).
 * Rejects with StoreError `invalid_store_url` for any other form, and with StoreUnavailableError when the
 * backend cannot be reached within `timeoutMs`.
 */
export async function openStore(url: string, options: StoreOptions = {}): Promise<PendingStore> {
  const target = parseStoreUrl(url);
  const resolved = resolveOptions(options);
  switch (target.kind) {
    case 'memory':
      return createKeyedStore(createMemoryBackend(), resolved);
    case 'sqlite': {
      const { openSqliteBackend } = await import('./sqlite-backend.js').catch((error: unknown) => {
        throw noNodeSqlite(error);
      });
      return createKeyedStore(
        await openSqliteBackend(target.file, { timeoutMs: resolved.timeoutMs, synchronous: resolved.sqliteSynchronous }),
        resolved,
      );
    }
    case 'redis': {
      const { openRedisBackend } = await import('./redis-backend.js');
      return createKeyedStore(await openRedisBackend(target, { timeoutMs: resolved.timeoutMs }), resolved);
    }
    case 'redis-cluster': {
      const { openRedisClusterBackend } = await import('./redis-cluster-backend.js');
      const backend = await openRedisClusterBackend(target, { timeoutMs: resolved.timeoutMs, waitReplicas: resolved.clusterWaitReplicas });
      return createKeyedStore(backend, resolved);
    }
    case 'postgres': {
      // Loaded on demand, like the Redis client: a host on another backend never loads pg.
      const { openPostgresBackend } = await import('./postgres-backend.js');
      const backend = await openPostgresBackend(target, {
        timeoutMs: resolved.timeoutMs,
        namespace: resolved.namespace,
        poolSize: resolved.postgresPoolSize,
      });
      return createKeyedStore(backend, resolved);
    }
  }
}

/** Before Node.js 22.13 node:sqlite is missing or behind a flag; say so instead of "no such built-in module". */
function noNodeSqlite(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_BUILTIN_MODULE') return error;
  return new StoreError(
    'store_unsupported',
    `the sqlite:// store runs on node:sqlite, built into Node.js >= 22.13, and this is Node.js ${process.versions.node}; upgrade Node.js, or use memory or redis://`,
    { cause: error },
  );
}
