/**
 * A PendingStore that opens its backend on first use, so `createAskUserKit({ store: 'redis://…' })` can
 * stay synchronous. An open that failed because the backend was unreachable is retried on the next call
 * (each failed call surfaces as StoreUnavailableError → 503); a bad URL fails at once.
 */
import { openStore, parseStoreUrl } from '../store/index.js';
import { resolveLogLimits, type EventLog } from '../store/event-log.js';
import { StoreUnavailableError, type PendingStore, type StateKeyOptions, type StoreOptions } from '../store/types.js';

export interface LazyStore extends PendingStore {
  /** Resolves once the backend is open; rejects with the open error. */
  ready(): Promise<PendingStore>;
}

export function lazyStore(url: string, options: StoreOptions = {}): LazyStore {
  const { kind } = parseStoreUrl(url);
  let opening: Promise<PendingStore> | undefined;
  let closed = false;

  const ready = (): Promise<PendingStore> => {
    if (closed) return Promise.reject(new StoreUnavailableError('the store was closed'));
    if (!opening) {
      opening = openStore(url, options);
      opening.catch((err: unknown) => {
        if (err instanceof StoreUnavailableError) opening = undefined;
      });
    }
    return opening;
  };

  /** The opened store's log (openStore always gives one). */
  const log = async (): Promise<EventLog> => (await ready()).log!;
  return {
    kind,
    ready,
    log: {
      limits: resolveLogLimits(options.eventLog),
      append: async (sessionId, frames) => (await log()).append(sessionId, frames),
      read: async (sessionId, after) => (await log()).read(sessionId, after),
      last: async (sessionId) => (await log()).last(sessionId),
      watch: async (sessionId, listener) => (await log()).watch(sessionId, listener),
      signal: async (sessionId, signal) => (await log()).signal(sessionId, signal),
    },
    create: async (record) => (await ready()).create(record),
    get: async (requestId) => (await ready()).get(requestId),
    currentOf: async (sessionId) => (await ready()).currentOf(sessionId),
    claim: async (requestId, resolution, claimOptions) => (await ready()).claim(requestId, resolution, claimOptions),
    markToolResultWritten: async (requestId) => (await ready()).markToolResultWritten(requestId),
    getState: async <T>(key: string, stateOptions?: StateKeyOptions) => (await ready()).getState<T>(key, stateOptions),
    putState: async (key, value, putOptions) => (await ready()).putState(key, value, putOptions),
    casState: async (key, value, putOptions) => (await ready()).casState(key, value, putOptions),
    deleteState: async (key, ifVersion, stateOptions) => (await ready()).deleteState(key, ifVersion, stateOptions),
    listState: async <T>(prefix: string, listOptions?: { cursor?: string; limit?: number }) =>
      (await ready()).listState<T>(prefix, listOptions),
    getMany: async (requestIds) => (await ready()).getMany(requestIds),
    async close() {
      if (closed) return;
      closed = true;
      const pending = opening;
      opening = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}
