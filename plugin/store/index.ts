/**
 * The pending store: one interface (types.ts), four backends, one factory (`openStore`).
 *
 * What is atomic: every write is one compare-and-swap on the raw stored row — a synchronous Map check-and-set
 * (memory, one process only), one conditional INSERT/UPDATE/DELETE (SQLite, any number of processes on one
 * local file; PostgreSQL, any number of processes), one Lua script (Redis, any number of processes). `claim`
 * is read + swap, retried on a lost swap, so exactly one concurrent caller wins on every backend. Keyv's own
 * delete is never used for that.
 *
 * What a timeout means: each operation fails with StoreUnavailableError after `timeoutMs`. Writes carry a
 * deadline ~250 ms before that, enforced by the backend (SQLite's clock; the Redis or PostgreSQL server's
 * clock with a measured offset), so a write that was still queued when the caller gave up changes nothing
 * when it finally runs. The remaining window: a write that runs just before its deadline but whose reply
 * arrives after the timeout. Then the caller saw 503 while the write happened; a retried claim answers
 * `already_resolved` with the stored resolution, from which the caller can tell its own answer.
 */
export { openStore } from './open-store.js';
export { createKeyedStore } from './keyed-store.js';
export { createMemoryBackend, type MemoryBackendOptions } from './memory-backend.js';
export { parseStoreUrl, STORE_URL_FORMS, type StoreTarget } from './store-url.js';
export { StoreError, type StoreErrorCode } from './store-errors.js';
export type { Backend, Expectation, SwapRequest } from './backend.js';
export {
  StoreUnavailableError,
  type ClaimOptions,
  type ClaimOutcome,
  type InteractionRecord,
  type PendingStore,
  type PutStateOptions,
  type Resolution,
  type StateEntry,
  type StoreOptions,
} from './types.js';
