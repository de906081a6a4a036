/**
 * The baseline of "what the event log costs" (contract §11): the same store with a log that keeps
 * nothing. Frames still reach the client attached; nothing is written, read, watched or signalled.
 * Bench only: a store without a real log cannot replay or follow, so no product option offers it.
 */
import type { PendingStore } from '../../plugin/store/index.js';
import type { EventLog } from '../../plugin/store/event-log.js';

export function noOpLog(limits: EventLog['limits']): EventLog {
  return {
    limits,
    append: async () => {},
    read: async () => ({ kind: 'frames', frames: [] }),
    last: async () => undefined,
    watch: async () => () => {},
    signal: async () => {},
  };
}

/** `store` with its log replaced by one that does nothing; every other member is the store's own. */
export function withoutLog(store: PendingStore): PendingStore {
  return { ...store, log: noOpLog(store.log!.limits) };
}
