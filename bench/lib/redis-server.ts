/**
 * A throwaway redis-server on a free 127.0.0.1 port, nothing persisted, and the two commands the bench
 * sends it directly (INFO commandstats, FLUSHALL) over a bare socket, so no client library is measured.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export const redisAvailable = (): boolean => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server not ready within 10 s:\n${output}`)), 10_000);
    child.once('exit', (code) => reject(new Error(`redis-server exited early (${code}):\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
  child.removeAllListeners('exit');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      process.off('exit', kill);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command in RESP, its reply as text (a bulk string's body, or the status line). */
export function command(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('redis command timed out')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      const done = bulk ? Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2 : reply.endsWith('\r\n');
      if (!done) return;
      socket.end();
      resolve(bulk ? reply.slice(bulk[0].length, bulk[0].length + Number(bulk[1])) : reply.trim());
    });
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
  });
}

/** Calls per command name since the server started (commands run inside scripts included). */
export async function commandStats(port: number): Promise<Record<string, number>> {
  const text = await command(port, 'INFO', 'commandstats');
  const stats: Record<string, number> = {};
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats[m[1]!] = Number(m[2]);
  return stats;
}

export const flushAll = (port: number) => command(port, 'FLUSHALL');

/** CPU seconds the server has used since it started, user and system together. */
export async function redisCpuSeconds(port: number): Promise<number> {
  const text = await command(port, 'INFO', 'cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}
