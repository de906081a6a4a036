/**
 * The bench's Redis Cluster (bench/lib/redis-cluster.ts): it starts as three masters with an online replica
 * each and answers on every node, and a SIGTERM to the bench process alone (not its group, as a kill of
 * the node process by its pid) still ends all six nodes and removes their temp dir. Without redis-server or
 * redis-cli it fails and says so (npm test installs them): no test is skipped silently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { redisClusterAvailable } from '../../bench/lib/redis-cluster.js';

const helper = new URL('../../bench/lib/redis-cluster.ts', import.meta.url).href;

/** The pids whose parent is `parent`, from /proc. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
}

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

test(
  'a SIGTERM to the bench process ends every node of its Redis Cluster and removes its temp dir',
  {
    timeout: 90_000,
  },
  async () => {
    assert.ok(redisClusterAvailable(), 'redis-server or redis-cli is not installed (Debian: apt-get install -y redis-server redis-tools)');
    // A bench process that starts a cluster, says what it started, and waits to be killed.
    const script = [
      `const { startRedisCluster } = await import(${JSON.stringify(helper)});`,
      'const cluster = await startRedisCluster();',
      'const masters = await cluster.masters();',
      'console.log(JSON.stringify({ ports: cluster.ports, dir: cluster.dir, masters, url: cluster.url }));',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const bench = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    bench.stdout.on('data', (d: Buffer) => (output += d));
    bench.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      bench.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      for (let i = 0; i < 600 && !output.includes('\n'); i++) await new Promise((r) => setTimeout(r, 100));
      const started = JSON.parse(output.split('\n')[0]!) as { ports: number[]; dir: string; masters: number[]; url: string };
      assert.equal(started.ports.length, 6);
      assert.equal(started.masters.length, 3, 'three masters, the other three their replicas');
      assert.equal(started.url, `redis+cluster://${started.ports.map((p) => `127.0.0.1:${p}`).join(',')}`);
      assert.ok(existsSync(started.dir));
      const nodes = childrenOf(bench.pid!);
      assert.equal(nodes.length, 6, `six redis-server children: ${nodes.join(', ')}`);
      for (const port of started.ports) assert.ok(await accepts(port), `node ${port} answers`);

      bench.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 143, signal: null }, output);
      for (let i = 0; i < 100 && nodes.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(nodes.filter(alive), [], 'no node of the cluster is left');
      for (const port of started.ports) assert.equal(await accepts(port), false, `node ${port} no longer answers`);
      assert.equal(existsSync(started.dir), false, 'the temp dir is gone');
    } finally {
      bench.kill('SIGKILL');
    }
  },
);
