/**
 * The event log's connection to a Redis Cluster (redis-log.ts, LogConnection). The store names a session's
 * log with a key ending in the session's `{slot tag}`, so the run keys derived from it and its wake-up
 * channel hash to one slot: each script touches one slot, and the wake-ups go by sharded pub/sub
 * (SPUBLISH, SSUBSCRIBE), which stays on the shard that owns the slot instead of reaching every node.
 */
import { appendScript, type LogConnection, type LuaScript, type ScriptOptions } from './redis-log.js';
import type { RedisClusterType } from '@keyv/redis';

/** The cluster client the store opens (redis-cluster-backend.ts) and the log shares. */
export type RedisClusterConnection = RedisClusterType<{}, {}, {}, 2, {}>;

const APPEND_SHARDED = appendScript('SPUBLISH');

export interface ClusterLogHooks {
  /** Runs a script on the master of its first key's slot, following MOVED and ASK. */
  run(script: LuaScript, options: ScriptOptions): Promise<unknown>;
  /** Called with a function to run whenever the cluster's connections come back or its map changes. */
  onBack(listener: () => void): void;
}

export function clusterLogConnection(cluster: RedisClusterConnection, hooks: ClusterLogHooks): LogConnection {
  return {
    run: hooks.run,
    append: APPEND_SHARDED,
    publish: (channel, message) => cluster.sPublish(channel, message),
    channel: (key) => `${key}#wake`,
    // A key without a hash tag (one not made by the store) is tagged whole, so its own keys share a slot.
    base: (key) => (/\{[^}]+\}/.test(key) ? key : `{${key}}`),
    async openSubscriber(onBack) {
      // The cluster client keeps one sharded subscriber connection per master, made on demand, and moves
      // subscriptions after a failover; a reconnect or a new map may have lost messages, so all wake.
      hooks.onBack(onBack);
      return {
        subscribe: (channel, listener) => cluster.sSubscribe(channel, listener),
        unsubscribe: (channel, listener) => cluster.sUnsubscribe(channel, listener),
        get isOpen() {
          return cluster.isOpen;
        },
        // The backend closes the cluster client, subscribers included.
        close: async () => undefined,
      };
    },
  };
}
