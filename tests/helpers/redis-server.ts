/**
 * A real redis-server for tests, on a free 127.0.0.1 port in its own temp dir, with helpers to take it
 * down (kill), make it unreachable without losing data (pause = SIGSTOP) and bring it back on the same
 * port. Nothing is persisted unless `persist` asks for an fsync'd append-only file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

export interface RedisServerOptions {
  /** Keep data across kill/restart with `appendonly yes, appendfsync always`. @default false */
  persist?: boolean;
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Graceful shutdown; also removes the temp dir. */
  stop(): Promise<void>;
  /** SIGKILL: the server is gone at once, like a crash. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing answers. */
  pause(): void;
  /** SIGCONT after pause. */
  resume(): void;
  /** Start again on the same port and dir after kill or stop(keepDir). */
  restart(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startRedisServer({ persist = false }: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = await makeTempDir('ask-user-redis-');
  let child = await launch(port, dir, persist);
  const exited = (c: ChildProcess) =>
    new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited(child);
      await dir.remove();
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async restart() {
      if (child.exitCode === null && child.signalCode === null)
        throw new Error('redis-server is still running; kill() it before restart()');
      child = await launch(port, dir, persist);
    },
  };
}

async function launch(port: number, dir: TempDir, persist: boolean): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.path, '--save', ''];
  args.push(...(persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
  return spawnRedisServer(port, args, 'redis-server');
}

/**
 * Starts `redis-server <args>` (listening on `port`) and resolves once it is ready to accept connections;
 * rejects with its output if it exits first or is not ready within 10 s, and names the package when it
 * is not installed. The process is killed when this process exits. `what` names it in errors.
 */
export async function spawnRedisServer(port: number, args: string[], what: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not become ready on port ${port} within 10 s; output:\n${output}`));
    }, 10_000);
    const done = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      done(
        error.code === 'ENOENT'
          ? new Error('redis-server is not on PATH; install it (Debian: apt-get install -y redis-server) to run the Redis store tests')
          : error,
      );
    });
    child.once('exit', (code, signal) => done(new Error(`redis-server exited early (${signal ?? code}); output:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) done();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
  child.removeAllListeners('exit');
  child.once('exit', () => live.delete(child));
  // Keep draining output so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}
