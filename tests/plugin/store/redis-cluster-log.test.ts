import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_LOG_LIMITS } from '../../../plugin/store/event-log.js';
import { openRedisClusterBackend } from '../../../plugin/store/redis-cluster-backend.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';
import { startRedisCluster, type RedisCluster } from '../../helpers/redis-cluster.js';
import { framesOf, logContract, logPairOf, until } from './log-contract.js';

let cluster: RedisCluster;
before(async () => {
  cluster = await startRedisCluster();
});
after(async () => {
  await cluster?.stop();
});

const open = () => {
  const target = parseStoreUrl(cluster.url);
  assert.equal(target.kind, 'redis-cluster');
  return openRedisClusterBackend(target as Extract<typeof target, { kind: 'redis-cluster' }>, { timeoutMs: 10_000, waitReplicas: 1 });
};

// Two backends on one cluster, as two instances would be.
logContract('redis-cluster', async () => logPairOf(await open(), await open()));

describe('redis cluster event log specifics', () => {
  it("keeps a session's log keys in one slot and wakes watchers by sharded pub/sub", async () => {
    const one = await open();
    const two = await open();
    try {
      const key = 'shard:log:s1{tag1}';
      const seen: Array<string | undefined> = [];
      const stop = await two.log!.watch(key, (signal) => seen.push(signal));
      await one.log!.append(key, framesOf('r1', 1, 2), DEFAULT_LOG_LIMITS);
      await one.log!.signal(key, 'hello');
      await until('the other instance hears the append and the signal', () => seen.includes(undefined) && seen.includes('hello'));
      const master = await cluster.masterOf(await cluster.keySlot(key));
      // The shard channel is subscribed on the slot's master, and no global channel is.
      assert.match(await cluster.cli(master, 'PUBSUB', 'SHARDCHANNELS', 'shard:*'), /shard:log:s1\{tag1\}#wake/);
      assert.equal(await cluster.cli(master, 'PUBSUB', 'CHANNELS', 'shard:*'), '');
      const keys = (await cluster.cli(master, '--scan', '--pattern', 'shard:*')).split('\n').sort();
      assert.deepEqual(keys, [`${key}#bytes`, `${key}#run:r1`, `${key}#runs`]);
      stop();
    } finally {
      await one.close();
      await two.close();
    }
  });
});
