/**
 * A throwaway Redis Cluster for the bench (contract §14), started the way tests/helpers/redis-cluster.ts
 * starts one: six `redis-server --cluster-enabled yes` on free 127.0.0.1 ports in one temp dir, nothing
 * persisted, joined by `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes` as three masters
 * with a replica each, ready once every node says the cluster is ok and every master has an online replica
 * (the store's writes wait for one, `WAIT 1`). The commands the bench sends it itself (INFO, FLUSHALL) go
 * over bare sockets (lib/redis-server.ts), so no client library is measured.
 *
 * A signal to the process (Ctrl-C, the kill bench/lib/steps.sh sends its step's group) or its exit takes
 * every node down with SIGKILL and removes the temp dir, as lib/postgres-server.ts does for PostgreSQL.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { command, freePort } from './redis-server.js';
import { endOnExit } from './end-on-exit.js';

const run = promisify(execFile);

export interface BenchRedisCluster {
  /** `redis+cluster://127.0.0.1:<port>,…` over all six nodes, as ASK_USER_STORE takes it. */
  url: string;
  /** Every node's port, masters and replicas. */
  ports: readonly number[];
  /** The temp dir of the nodes' cluster config files, removed when the cluster stops. */
  dir: string;
  /** The ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  /** Calls per command name since the nodes started, summed over the masters (the replicas only replay). */
  commandStats(): Promise<Record<string, number>>;
  /** FLUSHALL on every master; the replicas follow. */
  flushAll(): Promise<void>;
  /** CPU seconds all six nodes have used since they started, user and system together. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

const NODES = 6;
const READY_LIMIT_MS = 30_000;

/** redis-server and redis-cli are both on PATH (Debian: redis-server brings redis-tools). */
export const redisClusterAvailable = (): boolean =>
  ['redis-server', 'redis-cli'].every((bin) => spawnSync(bin, ['--version'], { stdio: 'ignore' }).status === 0);

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Six ports whose cluster bus ports (port + 10000) are free as well. */
async function clusterPorts(): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < NODES) {
    const port = await freePort();
    if (port < 55_000 && !ports.includes(port) && !ports.includes(port + 10_000) && (await portFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

function launch(port: number, dir: string): { child: ChildProcess; ready: Promise<void> } {
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
    ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
    ...['--save', '', '--appendonly', 'no'],
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster node ${port} not ready within 10 s:\n${output}`)), 10_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`cluster node ${port} exited early (${code}):\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // Keep draining its output so a chatty node never blocks on a full pipe.
      child.stdout!.removeAllListeners('data').resume();
      child.stderr!.removeAllListeners('data').resume();
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  return { child, ready };
}

/** INFO <section> (or CLUSTER INFO) of one node; empty when it does not answer. */
const info = (port: number, section?: string) =>
  (section ? command(port, 'INFO', section) : command(port, 'CLUSTER', 'INFO')).catch(() => '');

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + READY_LIMIT_MS;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`redis cluster: not ${what} within ${READY_LIMIT_MS / 1000} s`);
}

export async function startRedisCluster(): Promise<BenchRedisCluster> {
  const ports = await clusterPorts();
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-cluster-'));
  const children: ChildProcess[] = [];
  /** SIGKILL of every node, then the temp dir; safe to call twice, and from 'exit'. */
  const destroy = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const forget = endOnExit(destroy);

  try {
    const launched = ports.map((port) => launch(port, dir));
    children.push(...launched.map((l) => l.child));
    // One node failing rejects the whole start; the others' later rejections (killed by destroy) are not news.
    for (const l of launched) l.ready.catch(() => undefined);
    await Promise.all(launched.map((l) => l.ready));
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: READY_LIMIT_MS,
    });
    await until('ok on every node', async () =>
      (await Promise.all(ports.map((p) => info(p)))).every((s) => s.includes('cluster_state:ok')),
    );
    // Until a master's replica is in sync, the store's WAIT 1 after each write would wait out its budget.
    await until('an online replica on every master', async () => {
      const replication = await Promise.all(ports.map((p) => info(p, 'replication')));
      return replication.filter((r) => r.includes('role:master') && /slave0:.*state=online/.test(r)).length === NODES / 2;
    });
  } catch (error) {
    destroy();
    forget();
    throw error;
  }

  const masters = async () => {
    const roles = await Promise.all(ports.map(async (p) => ((await info(p, 'replication')).includes('role:master') ? [p] : [])));
    return roles.flat();
  };
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    dir,
    masters,
    async commandStats() {
      const stats: Record<string, number> = {};
      for (const port of await masters()) {
        const text = await command(port, 'INFO', 'commandstats');
        for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats[m[1]!] = (stats[m[1]!] ?? 0) + Number(m[2]);
      }
      return stats;
    },
    async flushAll() {
      for (const port of await masters()) await command(port, 'FLUSHALL');
    },
    async cpuSeconds() {
      let total = 0;
      for (const port of ports) {
        const text = await info(port, 'cpu');
        const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
        total += field('used_cpu_user') + field('used_cpu_sys');
      }
      return total;
    },
    async stop() {
      const exited = children.map(
        (child) =>
          new Promise<void>((resolve) =>
            child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
          ),
      );
      // Nothing is persisted, so nothing is lost by not shutting down cleanly.
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(exited);
      destroy();
      forget();
    },
  };
}
