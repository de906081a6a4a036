/**
 * One factory for every backend, chosen by URL, so the demo's `ASK_USER_STORE` and the tests build stores
 * the same way.
 */
import { createKeyedStore, resolveOptions } from './keyed-store.js';
import { createMemoryBackend } from './memory-backend.js';
import { parseStoreUrl } from './store-url.js';
import type { PendingStore, StoreOptions } from './types.js';

/**
 * Opens a store for `memory`, `sqlite://<file path>` or `redis://host:port[/db]` (`rediss://` for TLS).
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
      const { openSqliteBackend } = await import('./sqlite-backend.js');
      return createKeyedStore(
        await openSqliteBackend(target.file, { timeoutMs: resolved.timeoutMs, synchronous: resolved.sqliteSynchronous }),
        resolved,
      );
    }
    case 'redis': {
      const { openRedisBackend } = await import('./redis-backend.js');
      return createKeyedStore(await openRedisBackend(target, { timeoutMs: resolved.timeoutMs }), resolved);
    }
  }
}
