/** The pending store: one interface, three backends, one factory. */
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
