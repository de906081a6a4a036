/**
 * A real PostgreSQL server for tests: a fresh cluster (initdb) in its own temp dir, on a free 127.0.0.1
 * port, with helpers to take it down (kill), make it unreachable without losing data (pause = SIGSTOP of the
 * server and every process it forked) and bring it back on the same port and data.
 *
 * PostgreSQL refuses to run as root, so a root test run starts it as the `postgres` user that Debian's
 * package creates. The binaries come from Debian's /usr/lib/postgresql/<version>/bin (the newest there), or
 * from PATH. tests/ensure-tools.sh installs them when it can; when they are missing the start fails and
 * says so, so no PostgreSQL test is ever skipped silently.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';
import { makeTempDir, type TempDir } from './temp-dir.js';

export interface PostgresServer {
  /** `postgres://postgres:<password>@127.0.0.1:<port>/postgres` (the password is ignored: trust on loopback). */
  readonly url: string;
  readonly port: number;
  /** The server's major version, e.g. 15. */
  readonly version: number;
  /** Fast shutdown (clients are disconnected); also removes the temp dir. */
  stop(): Promise<void>;
  /** SIGKILL of the server and its backends: gone at once, like a crash. Committed data stays on disk. */
  kill(): Promise<void>;
  /** SIGSTOP of the server and its backends: connections stay open but nothing answers. */
  pause(): void;
  /** SIGCONT after pause. */
  resume(): void;
  /** Start again on the same port and data after kill. */
  restart(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
/** initdb and a first start are slow on a loaded machine; nothing waits this long when all is well. */
const START_LIMIT_MS = 60_000;

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) signalServer(child, 'SIGKILL');
});

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = binDir();
  const user = runAs();
  const port = await freePort();
  const dir = await makeTempDir('ask-user-postgres-');
  if (user) await chown(dir.path, user.uid, user.gid);
  const data = dir.file('data');
  await initdb(bin, data, dir, user);
  let child = await launch(bin, data, dir, port, user);
  const version = Number(/\(PostgreSQL\) (\d+)/.exec(execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }))?.[1]);
  const exited = (c: ChildProcess) =>
    new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));

  return {
    url: `postgres://postgres:not-checked@127.0.0.1:${port}/postgres`,
    port,
    version,
    async stop() {
      signalServer(child, 'SIGCONT');
      // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to leave.
      signalServer(child, 'SIGINT');
      const killer = setTimeout(() => signalServer(child, 'SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(killer);
      await dir.remove();
    },
    async kill() {
      signalServer(child, 'SIGKILL');
      await exited(child);
    },
    pause: () => signalServer(child, 'SIGSTOP'),
    resume: () => signalServer(child, 'SIGCONT'),
    async restart() {
      if (child.exitCode === null && child.signalCode === null) throw new Error('postgres is still running; kill() it before restart()');
      child = await launch(bin, data, dir, port, user);
    },
  };
}

/** Debian's newest PostgreSQL, else the one on PATH. */
function binDir(): string {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  try {
    const initdbPath = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    // Through any symlink, to the directory that holds postgres beside initdb.
    if (initdbPath) return dirname(realpathSync(initdbPath));
  } catch {
    // Not on PATH either: said below.
  }
  throw new Error(
    'PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH); install it (Debian: apt-get install -y postgresql) to run the PostgreSQL store tests',
  );
}

/** Who the server runs as: nobody else when not root; the `postgres` user when root (initdb refuses root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    return { uid, gid };
  } catch {
    throw new Error(
      "PostgreSQL refuses to run as root and there is no 'postgres' user to run it as; install Debian's postgresql package (it creates the user), or run the tests as another user",
    );
  }
}

function spawnOptions(dir: TempDir, user: { uid: number; gid: number } | undefined): SpawnOptions {
  // A working directory and HOME the server's user may enter; the rest of the environment as it is.
  return {
    cwd: dir.path,
    env: { ...process.env, HOME: dir.path, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user ?? {}),
  };
}

async function initdb(bin: string, data: string, dir: TempDir, user: { uid: number; gid: number } | undefined): Promise<void> {
  const args = ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'];
  const child = spawn(join(bin, 'initdb'), args, spawnOptions(dir, user));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`initdb exited ${code}; output:\n${output}`);
}

async function launch(
  bin: string,
  data: string,
  dir: TempDir,
  port: number,
  user: { uid: number; gid: number } | undefined,
): Promise<ChildProcess> {
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir.path,
    // Each test file opens many stores, each with its own pool.
    max_connections: '300',
    shared_buffers: '16MB',
    // A killed server keeps every commit (the OS has it); only an OS crash would lose some, which tests never see.
    fsync: 'off',
    full_page_writes: 'off',
  };
  const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const child = spawn(join(bin, 'postgres'), args, spawnOptions(dir, user));
  live.add(child);
  child.once('exit', () => live.delete(child));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signalServer(child, 'SIGKILL');
      reject(new Error(`postgres did not become ready on port ${port} within ${START_LIMIT_MS / 1000} s; output:\n${output}`));
    }, START_LIMIT_MS);
    const done = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    child.once('error', done);
    child.once('exit', (code, signal) => done(new Error(`postgres exited early (${signal ?? code}); output:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(READY)) done();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
  child.removeAllListeners('exit');
  child.once('exit', () => live.delete(child));
  // Keep draining output so a chatty server never blocks on a full pipe.
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();
  return child;
}

/**
 * Signals the server and every process it forked (backends, checkpointer, …). Not a process group: each of
 * PostgreSQL's children makes a session of its own. The server goes first on stop and kill, so it forks no
 * new backend meanwhile, and last on resume.
 */
function signalServer(child: ChildProcess, signal: NodeJS.Signals): void {
  // Once the server is gone its pid may be anyone's: leave it alone.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const server = child.pid;
  const send = (pid: number) => {
    try {
      process.kill(pid, signal);
    } catch {
      // Exited meanwhile.
    }
  };
  if (signal !== 'SIGCONT') send(server);
  for (const pid of childrenOf(server)) send(pid);
  if (signal === 'SIGCONT') send(server);
}

/** The pids whose parent is `parent`, from /proc (Linux). */
function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (command) state ppid …"; the command may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // Exited while listing.
    }
  }
  return pids;
}
