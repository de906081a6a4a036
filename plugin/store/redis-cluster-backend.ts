/**
 * Redis Cluster backend (contract §14), on node-redis's cluster client. The store ends every key of one
 * session with that session's `{slot tag}` (physical-keys.ts, `slotted`), so a compare-and-swap is still
 * one Lua script on one master, the same script as the single-server backend. The client follows MOVED
 * and ASK itself; after a master dies it is asked to read the cluster's map again, so the slot's promoted
 * replica takes over without a restart.
 *
 * Acknowledged means durable across a failover: after a swap wrote, `WAIT <clusterWaitReplicas>` on the
 * same connection holds the reply until that many replicas have the write. One more round trip per
 * write; a write no replica confirmed in time fails as unavailable, and a retry finds it (nothing is
 * claimed twice). Reads go to masters only.
 */
import { createCluster, type RedisClientType } from '@keyv/redis';
import type { Backend, ScanPage, SwapRequest } from './backend.js';
import { clockOffsetOf, globEscape, SWAP, swapArguments } from './redis-backend.js';
import { clusterLogConnection, type RedisClusterConnection } from './redis-cluster-log.js';
import { RedisLog, type LuaScript, type ScriptOptions } from './redis-log.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

export type { RedisClusterConnection } from './redis-cluster-log.js';
type NodeClient = RedisClientType<{}, {}, {}, 2, {}>;

export interface RedisClusterBackendOptions {
  /** The store's per-operation budget; connecting uses it too. */
  timeoutMs: number;
  /** Replicas that must have a write before it is acknowledged; 0 acknowledges on the master alone. */
  waitReplicas: number;
}

/** A cluster that is failing over needs its map read again, but not more often than this. */
const REDISCOVER_EVERY_MS = 200;

export async function openRedisClusterBackend(
  target: { rootNodes: ReadonlyArray<{ host: string; port: number }>; label: string; username?: string; password?: string },
  { timeoutMs, waitReplicas }: RedisClusterBackendOptions,
): Promise<Backend> {
  const cluster: RedisClusterConnection = createCluster({
    rootNodes: target.rootNodes.map(({ host, port }) => ({ socket: { host, port } })),
    defaults: {
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      // While a node is disconnected, fail its commands at once instead of queueing them past the budget.
      disableOfflineQueue: true,
      commandsQueueMaxLength: 10_000,
      socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) },
    },
  });
  const rediscovery = new Rediscovery(cluster, timeoutMs);
  // Every node's failed reconnect is emitted; operations report failures, the process must not crash.
  cluster.on('error', () => undefined);
  cluster.on('node-error', () => rediscovery.nudge());
  cluster.on('node-reconnecting', () => rediscovery.nudge());

  const replicaCounts = new ReplicaCounts(waitReplicas);
  // A failover leaves a promoted master with fewer replicas: read every master's count with the new map.
  rediscovery.onChange(() => {
    for (const master of cluster.masters) {
      cluster.nodeClient(master).then(
        (client) => replicaCounts.read(client as NodeClient),
        () => undefined,
      );
    }
  });

  /** Server clock minus ours, per node address, in ms (see redis-backend.ts); a node not yet measured writes without a deadline. */
  const offsets = new Map<string, number>();
  const calibrate = async (client: NodeClient) => {
    offsets.set(addressOf(client), await clockOffsetOf(client));
  };

  try {
    await withinBudget(`connecting to ${target.label}`, timeoutMs, async () => {
      await cluster.connect();
      await Promise.all(cluster.masters.map(async (master) => calibrate((await cluster.nodeClient(master)) as NodeClient)));
    });
  } catch (error) {
    cluster.destroy();
    throw error;
  }

  /**
   * Runs `work` on the master of `key`'s slot, following MOVED and ASK. A lost node asks for a new map, and
   * so does a call still unanswered after the budget: a hung master sends no error, only silence.
   */
  async function onMaster<T>(key: string, work: (client: NodeClient, options: object | undefined) => Promise<T>): Promise<T> {
    const silent = setTimeout(() => rediscovery.nudge(), timeoutMs);
    try {
      return await cluster._execute(key, false, undefined, (client, options) => work(client as NodeClient, options));
    } catch (error) {
      rediscovery.nudge();
      throw error;
    } finally {
      clearTimeout(silent);
    }
  }

  /** A script by EVALSHA on the node, EVAL once when it does not know it (a promoted replica may not). */
  async function runScript(client: NodeClient, options: object | undefined, script: LuaScript, { keys, arguments: args }: ScriptOptions) {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand(['EVALSHA', script.sha, ...tail], options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', script.source, ...tail], options);
    }
  }

  async function swap(request: SwapRequest): Promise<boolean> {
    return onMaster(request.key, async (client, options) => {
      const offset = offsets.get(addressOf(client));
      if (offset === undefined) calibrate(client).catch(() => undefined);
      const reply = Number(await runScript(client, options, SWAP, { keys: [request.key], arguments: swapArguments(request, offset) }));
      if (reply === -1) throw new StoreUnavailableError(`${target.label} ran the write after its deadline; nothing was written`);
      if (reply !== 1) return false;
      if (waitReplicas > 0) await confirmed(client, Math.max(1, request.deadline - Date.now()));
      return true;
    });
  }

  /**
   * WAIT on the connection that wrote: it covers that connection's writes so far, ours among them. A master
   * with fewer replicas than asked for (one was promoted away and none joined yet) waits for those it has:
   * a failed node is never promoted, so a write every live replica holds survives any failover there can be.
   */
  async function confirmed(client: NodeClient, waitMs: number): Promise<void> {
    const needed = replicaCounts.needed(client);
    if (needed === 0) return;
    const acks = Number(await client.sendCommand(['WAIT', String(needed), String(Math.ceil(waitMs))]));
    if (acks < needed) {
      replicaCounts.read(client);
      throw new StoreUnavailableError(
        `${target.label}: the write reached ${acks} of ${needed} replica(s) in time, so it may not survive a failover; retry (the write is found, not repeated)`,
      );
    }
  }

  async function scan(prefix: string, cursor: string | undefined, limit: number): Promise<ScanPage> {
    // The cursor is `<master index>:<that master's cursor>`, masters in address order; a failover
    // meanwhile may repeat or skip keys of one master, which a sweep tolerates (backend.ts).
    const masters = [...cluster.masters].sort((a, b) => a.address.localeCompare(b.address));
    const [at, inner] =
      cursor === undefined ? [0, '0'] : [Number(cursor.slice(0, cursor.indexOf(':'))), cursor.slice(cursor.indexOf(':') + 1)];
    const master = masters[at];
    if (master === undefined) return { entries: [] };
    const client = (await cluster.nodeClient(master)) as NodeClient;
    const reply = await client.scan(inner, { MATCH: `${globEscape(prefix)}*`, COUNT: limit });
    const raws = await readMany(reply.keys);
    // A key removed between the two commands has no row left: it is simply not listed.
    const entries = reply.keys.flatMap((k, i): Array<[string, string]> => (raws[i] !== undefined ? [[k, raws[i]]] : []));
    if (reply.cursor !== '0') return { entries, cursor: `${at}:${reply.cursor}` };
    return at + 1 < masters.length ? { entries, cursor: `${at + 1}:0` } : { entries };
  }

  /** One GET per key (keys of many slots cannot share an MGET); the client pipelines them per node. */
  async function readMany(keys: readonly string[]): Promise<Array<string | undefined>> {
    return Promise.all(keys.map(read));
  }

  async function read(key: string): Promise<string | undefined> {
    const raw = await onMaster(key, (client, options) => client.sendCommand(['GET', key], options));
    return typeof raw === 'string' ? raw : undefined;
  }

  const log = new RedisLog(
    clusterLogConnection(cluster, {
      run: (script, options) => onMaster(options.keys[0]!, (client, commandOptions) => runScript(client, commandOptions, script, options)),
      onBack: (listener) => {
        cluster.on('node-ready', listener);
        rediscovery.onChange(listener);
      },
    }),
    { label: target.label, timeoutMs },
  );

  return {
    kind: 'redis-cluster',
    label: target.label,
    slotted: true,
    log,
    read,
    swap,
    readMany,
    scan,
    close: async () => {
      // A map read under way would connect new node clients after the close: let it end first.
      await rediscovery.stop(timeoutMs);
      await log.close();
      // A graceful close waits for pending replies, which a paused node never sends.
      if (!cluster.isOpen) return;
      await withinBudget(`closing ${target.label}`, timeoutMs, () => cluster.close()).catch(() => cluster.destroy());
    },
  };
}

/** `host:port` of a node's connection, as the client was told it. */
function addressOf(client: NodeClient): string {
  const socket = client.options?.socket as { host?: string; port?: number } | undefined;
  return `${socket?.host ?? ''}:${socket?.port ?? ''}`;
}

/**
 * Reads the cluster's slot map again when a node is lost. The client does so by itself only on MOVED,
 * which a dead master never sends: until its replica is promoted and the map read again, its slots fail.
 */
class Rediscovery {
  readonly #cluster: RedisClusterConnection;
  readonly #listeners = new Set<() => void>();
  #running: Promise<void> | undefined;
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  readonly #timeoutMs: number;

  constructor(cluster: RedisClusterConnection, timeoutMs: number) {
    this.#cluster = cluster;
    this.#timeoutMs = timeoutMs;
  }

  /** Asks for a new map soon; repeated calls within REDISCOVER_EVERY_MS are one. */
  nudge(): void {
    if (this.#stopped || this.#running !== undefined || this.#timer !== undefined) return;
    const wait = Math.max(0, this.#last + REDISCOVER_EVERY_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.#run().finally(() => (this.#running = undefined));
    }, wait);
    this.#timer.unref();
  }

  /** `listener` runs after each map read that changed a slot's master. */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** No more map reads; resolves once the one under way, if any, has ended, or after `waitMs` (a frozen node never answers). */
  async stop(waitMs: number): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#listeners.clear();
    if (this.#running) await withinBudget('reading the cluster map', waitMs, () => this.#running!).catch(() => undefined);
  }

  async #run(): Promise<void> {
    this.#last = Date.now();
    const before = this.#masterMap();
    try {
      // Bounded: a node that hangs mid-read would otherwise hold every later map read behind this one.
      await withinBudget('reading the cluster map', this.#timeoutMs, async () => {
        const start = await this.#answeringNode();
        await this.#cluster._slots.rediscover(start as never);
      });
    } catch {
      // Nothing answered yet; the next lost command, reconnect or silent call asks again.
    }
    if (this.#stopped || this.#masterMap() === before) return;
    for (const listener of [...this.#listeners]) listener();
  }

  /** The first master to answer a PING: the map is read from it, never from a hung one (its read would never end). */
  #answeringNode(): Promise<unknown> {
    return Promise.any(
      this.#cluster.masters.map(async (master) => {
        const client = (await this.#cluster.nodeClient(master)) as NodeClient;
        await client.sendCommand(['PING']);
        return client;
      }),
    );
  }

  #masterMap(): string {
    return this.#cluster.masters
      .map((m) => m.address)
      .sort()
      .join(',');
  }
}

/**
 * How many replicas each master has that the cluster does not mark failed, per address (`CLUSTER
 * REPLICAS`). Read for every master after a new map (a failover), for one master after a WAIT fell short,
 * and again each second while it is short: a healthy cluster costs no call here.
 */
class ReplicaCounts {
  readonly #wanted: number;
  readonly #counts = new Map<string, { replicas: number; at: number }>();
  readonly #reading = new Set<string>();

  constructor(wanted: number) {
    this.#wanted = wanted;
  }

  /** Replicas a write on the master behind `client` waits for: the wanted count, or all it has when it has fewer. */
  needed(client: NodeClient): number {
    const entry = this.#counts.get(addressOf(client));
    if (entry === undefined) return this.#wanted;
    if (entry.replicas < this.#wanted && Date.now() - entry.at >= SHORT_COUNT_READ_EVERY_MS) this.read(client);
    return Math.min(this.#wanted, entry.replicas);
  }

  /** Reads the count in the background; the writes meanwhile go by the last one. */
  read(client: NodeClient): void {
    const address = addressOf(client);
    if (this.#reading.has(address)) return;
    this.#reading.add(address);
    liveReplicasOf(client)
      .then((replicas) => this.#counts.set(address, { replicas, at: Date.now() }))
      .catch(() => undefined)
      .finally(() => this.#reading.delete(address));
  }
}

/** A master short of replicas is asked again this often, so one that joins is waited for again. */
const SHORT_COUNT_READ_EVERY_MS = 1000;

/** Replicas of the master behind `client` that the cluster does not mark `fail` (a `fail?` one might still be promoted: it counts). */
async function liveReplicasOf(client: NodeClient): Promise<number> {
  const id = String(await client.sendCommand(['CLUSTER', 'MYID']));
  const lines = (await client.sendCommand(['CLUSTER', 'REPLICAS', id])) as unknown as string[];
  return lines.filter((line) => !(line.split(' ')[2] ?? '').split(',').includes('fail')).length;
}
