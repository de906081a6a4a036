import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@keyv/redis';
import { DEFAULT_LOG_LIMITS } from '../../../plugin/store/event-log.js';
import { openRedisBackend } from '../../../plugin/store/redis-backend.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { framesOf, logContract, logPairOf, until } from './log-contract.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
});

const open = () => openRedisBackend({ url: redis.url, label: 'redis (test)' }, { timeoutMs: 10_000 });

// Two backends on one server: two command connections and, once watched, two subscriber connections.
logContract('redis', async () => {
  const one = await open();
  const two = await open();
  return logPairOf(one, two);
});

describe('redis event log specifics', () => {
  /** The ids of the server's current connections. */
  const clientIds = async (client: Awaited<ReturnType<typeof observer>>) => new Set((await client.clientList()).map((c) => c.id));

  /** A plain connection of the test's own, to look at what the log left on the server. */
  async function observer() {
    const client = createClient({ url: redis.url });
    await client.connect();
    return client;
  }

  it('keeps a session in keys that all expire windowMs after its last frame', async () => {
    const backend = await open();
    const client = await observer();
    try {
      const key = 'layout:log:s1';
      const limits = { ...DEFAULT_LOG_LIMITS, windowMs: 60_000 };
      await backend.log!.append(key, framesOf('r1', 1, 2), limits);
      await backend.log!.append(key, framesOf('r2', 1, 1), limits);
      assert.deepEqual((await client.keys('layout:*')).sort(), [`${key}#bytes`, `${key}#run:r1`, `${key}#run:r2`, `${key}#runs`]);
      assert.deepEqual(await client.lRange(`${key}#runs`, 0, -1), ['r1', 'r2']);
      // <seq>:<bytes of event and data>:<event length>:<event><data>
      assert.deepEqual(await client.lRange(`${key}#run:r2`, 0, -1), ['1:12:5:delta{"n":1}']);
      for (const k of await client.keys('layout:*')) {
        const ttl = await client.pTTL(k);
        assert.ok(ttl > 0 && ttl <= 60_000, `${k} expires within the window (${ttl} ms)`);
      }
    } finally {
      await client.close();
      await backend.close();
    }
  });

  it('watches on one subscriber connection, subscribed per watched key, with no traffic while idle', async () => {
    const client = await observer();
    const earlier = await clientIds(client);
    const backend = await open();
    try {
      const log = backend.log!;
      const keys = Array.from({ length: 1000 }, (_, i) => `idle:log:s${i}`);
      const stops = await Promise.all(keys.map((key) => log.watch(key, () => undefined)));
      // Two more on one key share its subscription.
      const extra = await Promise.all([log.watch(keys[0]!, () => undefined), log.watch(keys[0]!, () => undefined)]);
      const subscribers = (await client.clientList()).filter((c) => !earlier.has(c.id) && c.sub > 0);
      assert.equal(subscribers.length, 1, 'one subscriber connection');
      assert.equal(subscribers[0]!.sub, 1000, 'one subscription per watched key');

      const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))![1]);
      const before = await commands();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // The second INFO is the only command in between.
      assert.equal((await commands()) - before, 1, 'idle watchers send nothing');

      for (const stop of [...stops, ...extra]) stop();
      await until('every channel is unsubscribed', async () => (await client.pubSubChannels('idle:*')).length === 0);
      const seen: Array<string | undefined> = [];
      const stop = await log.watch(keys[5]!, (signal) => seen.push(signal));
      await log.signal(keys[5]!, 'back');
      await until('a key watched again is woken', () => seen.includes('back'));
      stop();
    } finally {
      await client.close();
      await backend.close();
    }
  });

  it('wakes every watcher when the subscriber connection comes back, for what was published meanwhile', async () => {
    const backend = await open();
    const client = await observer();
    try {
      const seen: Array<string | undefined> = [];
      const stop = await backend.log!.watch('lost:log:s', (signal) => seen.push(signal));
      await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      await until('the watcher is woken after the reconnect', () => seen.includes(undefined));
      await until('the channel is subscribed again', async () => (await client.pubSubChannels('lost:*')).length === 1);
      await backend.log!.signal('lost:log:s', 'again');
      await until('and it hears the channel again', () => seen.includes('again'));
      stop();
    } finally {
      await client.close();
      await backend.close();
    }
  });

  it('makes no subscriber connection until something is watched, and closes it with the backend', async () => {
    const client = await observer();
    // Connections of earlier tests may still be closing: only the ones opened from here on count.
    const earlier = await clientIds(client);
    const backend = await open();
    try {
      const opened = async () => [...(await clientIds(client))].filter((id) => !earlier.has(id));
      const own = await opened();
      assert.equal(own.length, 1, 'the command connection');
      await backend.log!.append('lazy:log:s', framesOf('r', 1, 1), DEFAULT_LOG_LIMITS);
      assert.deepEqual(await opened(), own, 'an append opens nothing');
      await backend.log!.watch('lazy:log:s', () => undefined);
      const withWatch = await opened();
      assert.equal(withWatch.length, 2, 'the first watch opens the subscriber connection');
      await backend.close();
      await until('both connections are closed', async () => (await opened()).length === 0);
    } finally {
      await client.close();
      await backend.close();
    }
  });
});
