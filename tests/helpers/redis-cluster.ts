/**
 * A real Redis Cluster for tests: six `redis-server --cluster-enabled yes` on free 127.0.0.1 ports, each
 * in its own dir of one temp dir, joined by `redis-cli --cluster create` as three masters with a replica
 * each. Helpers find a key's master, kill it like a crash and wait until its replica took over, freeze or
 * kill the whole cluster and bring it back on the same ports and dirs, and stop everything.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { freePort, isFree } from './free-port.js';
import { spawnRedisServer } from './redis-server.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

const run = promisify(execFile);

export interface ClusterNode {
  readonly port: number;
  readonly child: ChildProcess;
}

export interface RedisClusterOptions {
  /**
   * Keep data across kill/restart of the whole cluster: `appendonly yes, appendfsync always` on every
   * node (each node's nodes.conf keeps the topology either way). @default false
   */
  persist?: boolean;
}

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:<port>,…` over all six nodes. */
  readonly url: string;
  readonly nodes: readonly ClusterNode[];
  /** `redis-cli -p <port> <args>` on one node, its output trimmed. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The slot Redis Cluster hashes `key` to. */
  keySlot(key: string): Promise<number>;
  /** The port of the master now serving `slot`. */
  masterOf(slot: number): Promise<number>;
  /** The ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  /**
   * SIGKILL the master of `slot` (a crash) and wait until a replica serves the slot as master and the
   * surviving nodes agree the cluster is ok. Returns the new master's port.
   */
  failMasterOf(slot: number): Promise<number>;
  /** SIGSTOP every node: connections stay open but nothing answers, and no node sees another fail. */
  pause(): void;
  /** SIGCONT every node after pause. */
  resume(): void;
  /** SIGKILL every node at once, like a crash of the whole cluster. */
  kill(): Promise<void>;
  /**
   * Start every node again on its port and dir after kill (its nodes.conf has the topology, its
   * append-only file the data when `persist`), and wait until the cluster is ok and every master has an
   * online replica again.
   */
  restart(): Promise<void>;
  /** Kills every node and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * Started again (three times at most) when a node found its port taken: the ports are picked free, but
 * another process on the machine (another test file's cluster) may bind one, or its cluster bus port
 * (+10000), before the node does.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

async function startOnce({ persist = false }: RedisClusterOptions): Promise<RedisCluster> {
  const dir = await makeTempDir('ask-user-redis-cluster-');
  const ports: number[] = [];
  while (ports.length < 6) {
    const port = await freePort();
    // The cluster bus listens on port + 10000: keep both free and distinct.
    if (port < 55_000 && !ports.includes(port) && !ports.includes(port + 10_000) && (await isFree(port + 10_000))) ports.push(port);
  }
  const nodes: ClusterNode[] = [];
  const killed = new Set<number>();
  const settings = { dir, persist };
  /** Starts every node at once (each spends its first two seconds refusing to serve as a master anyway). */
  const launchAll = async () => {
    const launched = await Promise.allSettled(ports.map(async (port) => ({ port, child: await launch(port, settings) })));
    nodes.splice(0, nodes.length, ...launched.flatMap((l) => (l.status === 'fulfilled' ? [l.value] : [])));
    const failed = launched.find((l) => l.status === 'rejected');
    if (failed) throw failed.reason;
  };
  /** Every node says the cluster is ok, and each of the three masters has a replica in sync. */
  const ready = async () => {
    for (const port of ports)
      await until(`node ${port} reports cluster_state:ok`, async () => (await info(port)).includes('cluster_state:ok'));
    // A replica that never synced cannot take over (nor confirm a WAIT): wait until each master has one online.
    await until('every master has an online replica', async () => {
      const replication = await Promise.all(ports.map((p) => info(p, 'INFO', 'replication')));
      return replication.filter((r) => r.includes('role:master') && /slave0:.*state=online/.test(r)).length === 3;
    });
  };
  try {
    await launchAll();
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: 30_000,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new Error('redis-cli is not on PATH; install it (Debian: apt-get install -y redis-tools)');
      throw error;
    });
    await ready();
  } catch (error) {
    await killAll(nodes);
    // A removal that fails must not hide why the cluster did not start.
    await dir.remove().catch(() => undefined);
    throw error;
  }

  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();
  const alive = () => ports.filter((p) => !killed.has(p));
  /** Slot → master port, as a living node sees it. */
  const slotMaster = async (slot: number, from: number): Promise<number | undefined> => {
    const { stdout } = await run('redis-cli', ['-p', String(from), '--json', 'CLUSTER', 'SLOTS'], { timeout: 10_000 }).catch(() => ({
      stdout: '[]',
    }));
    const ranges = JSON.parse(stdout) as Array<[number, number, [string, number, string]]>;
    const range = ranges.find(([start, end]) => start <= slot && slot <= end);
    return range?.[2][1];
  };

  const cluster: RedisCluster = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    nodes,
    cli,
    keySlot: async (key) => Number(await cli(alive()[0]!, 'CLUSTER', 'KEYSLOT', key)),
    masterOf: async (slot) => {
      const port = await slotMaster(slot, alive()[0]!);
      if (port === undefined) throw new Error(`no master serves slot ${slot}`);
      return port;
    },
    masters: async () => {
      const roles = await Promise.all(alive().map(async (p) => ((await cli(p, 'ROLE')).startsWith('master') ? [p] : [])));
      return roles.flat();
    },
    async failMasterOf(slot) {
      const old = await cluster.masterOf(slot);
      const node = nodes.find((n) => n.port === old)!;
      node.child.kill('SIGKILL');
      killed.add(old);
      let promoted: number | undefined;
      await until(
        `a replica takes over slot ${slot} from ${old}`,
        async () => {
          const views = await Promise.all(alive().map((p) => slotMaster(slot, p)));
          promoted = views[0];
          return promoted !== undefined && promoted !== old && views.every((v) => v === promoted);
        },
        30_000,
      );
      await until('the survivors agree the cluster is ok', async () => {
        const states = await Promise.all(alive().map((p) => info(p)));
        return states.every((s) => s.includes('cluster_state:ok'));
      });
      return promoted!;
    },
    pause() {
      for (const node of nodes) node.child.kill('SIGSTOP');
    },
    resume() {
      for (const node of nodes) node.child.kill('SIGCONT');
    },
    kill: () => killAll(nodes),
    async restart() {
      if (nodes.some((node) => node.child.exitCode === null && node.child.signalCode === null))
        throw new Error('a cluster node is still running; kill() the cluster before restart()');
      killed.clear();
      await launchAll();
      await ready();
    },
    async stop() {
      await killAll(nodes);
      await dir.remove();
    },
  };
  return cluster;
}

/** `CLUSTER INFO` (or the command given) on one node; empty when it does not answer. */
const info = async (port: number, ...command: string[]): Promise<string> =>
  (
    await run('redis-cli', ['-p', String(port), ...(command.length > 0 ? command : ['CLUSTER', 'INFO'])], { timeout: 5_000 }).catch(() => ({
      stdout: '',
    }))
  ).stdout;

async function killAll(nodes: readonly ClusterNode[]): Promise<void> {
  for (const node of nodes) node.child.kill('SIGKILL');
  await Promise.all(nodes.map((node) => exited(node.child)));
}

const exited = (c: ChildProcess) =>
  new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));

async function launch(port: number, { dir, persist }: { dir: TempDir; persist: boolean }): Promise<ChildProcess> {
  // A dir of its own: a replica's sync writes its dump file there, and with persist its append-only file.
  const home = dir.file(String(port));
  await mkdir(home, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    home,
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    `nodes-${port}.conf`,
    '--cluster-node-timeout',
    // One second makes a failover take a few seconds, not fifteen. A cluster frozen whole (pause) for
    // longer wakes with every node at once and has not failed itself over in our runs.
    '1000',
    // A master syncs its replica at once instead of waiting 5 s for more replicas to share the transfer.
    '--repl-diskless-sync-delay',
    '0',
    '--save',
    '',
    ...(persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  ];
  return spawnRedisServer(port, args, 'redis-server (cluster node)');
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis cluster: timed out waiting until ${what}`);
}
