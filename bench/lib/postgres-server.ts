/**
 * A throwaway PostgreSQL for the bench, started the way tests/helpers/postgres-server.ts starts one: a
 * fresh cluster (initdb) in a temp dir, on a free 127.0.0.1 port, as the `postgres` user when root
 * (PostgreSQL refuses to run as root), binaries from Debian's /usr/lib/postgresql/<newest>/bin or PATH,
 * `fsync=off` and `full_page_writes=off`: nothing waits on the disk, as nothing does on the bench's Redis
 * (no persistence at all). Unlike the tests' server it keeps PostgreSQL's default buffers (128 MB) and loads
 * pg_stat_statements when installed, so the bench can count the statements the server ran.
 *
 * One per bench process. A signal to the process (Ctrl-C, the kill bench/lib/steps.sh sends its step's
 * group) or its exit takes the server and the processes it forked down with SIGKILL and removes the temp
 * dir: PostgreSQL's backends each run in a session of their own, so the group kill alone would miss them.
 * The few statements the bench sends itself (CREATE DATABASE, statistics) go through `pg` in this process,
 * never on a measured server.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from './redis-server.js';
import { endOnExit } from './end-on-exit.js';

export interface BenchPostgres {
  port: number;
  /** The server's major version, e.g. 15. */
  version: number;
  /** pg_stat_statements is loaded and created (statementStats answers). */
  statements: boolean;
  /** The URL of database `database` (`postgres` is the cluster's own). */
  url(database?: string): string;
  /** Drops `name` if it exists and creates it empty. */
  freshDatabase(name: string): Promise<string>;
  /**
   * VACUUM (ANALYZE) of each database, then a CHECKPOINT: what autovacuum and the checkpointer would do on
   * their own some time after a bulk of writes, done before measuring so it does not land on a measured slice.
   */
  settle(databases: string[]): Promise<void>;
  /** Calls per top-level statement run on database `database` since the server started (pg_stat_statements). */
  statementStats(database: string): Promise<Record<string, number>>;
  /** CPU seconds the server and every process it forked have used, user and system, from /proc. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
const START_LIMIT_MS = 60_000;

type User = { uid: number; gid: number } | undefined;

/** Debian's newest PostgreSQL, else the one on PATH; undefined when neither is there. */
function binDir(): string | undefined {
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const initdb = found.status === 0 ? found.stdout.trim() : '';
  return initdb ? dirname(realpathSync(initdb)) : undefined;
}

/** Where the server's extension libraries are: pg_config's answer, else Debian's lib beside bin. */
function libDir(bin: string): string {
  try {
    return execFileSync(join(bin, 'pg_config'), ['--pkglibdir'], { encoding: 'utf8' }).trim();
  } catch {
    return join(dirname(bin), 'lib');
  }
}

/** Nobody else when not root; the `postgres` user when root; null when root and there is no such user. */
function runAs(): User | null {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/** Why PostgreSQL cannot be started here, or undefined when it can. */
export function postgresMissing(): string | undefined {
  if (!binDir())
    return 'PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH; Debian: apt-get install -y postgresql)';
  if (runAs() === null) return "PostgreSQL refuses to run as root and there is no 'postgres' user to run it as";
  return undefined;
}

/** The pids whose parent is `parent`, from /proc (Linux). */
function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (command) state ppid …"; the command may hold spaces and parentheses, so read after the last ')'.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) pids.push(Number(entry));
    } catch {
      // Exited while listing.
    }
  }
  return pids;
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime (and with `children`, cutime + cstime: the children it has reaped) of `pid`, in seconds. */
function cpuOf(pid: number, children: boolean): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After ')': state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17); index 0 is field 3.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const own = fields[11]! + fields[12]!;
    return (children ? own + fields[13]! + fields[14]! : own) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Exited meanwhile.
  }
}

async function run(command: string, args: string[], options: SpawnOptions): Promise<void> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new Error(`${command} exited ${code}; output:\n${output}`);
}

export async function startPostgres(): Promise<BenchPostgres> {
  const why = postgresMissing();
  if (why) throw new Error(why);
  const bin = binDir()!;
  const user = runAs() ?? undefined;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bench-postgres-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  // A working directory and HOME the server's user may enter; the rest of the environment as it is.
  const options: SpawnOptions = { cwd: dir, env: { ...process.env, HOME: dir, LC_ALL: 'C' }, ...(user ?? {}) };

  let child: ChildProcess | undefined;
  /** SIGKILL of the server and everything it forked, then the temp dir; safe to call twice, and from 'exit'. */
  const destroy = () => {
    const server = child?.pid;
    if (server !== undefined && child!.exitCode === null && child!.signalCode === null) {
      // Stopped first so it forks nothing while its children are listed.
      send(server, 'SIGSTOP');
      for (const pid of childrenOf(server)) send(pid, 'SIGKILL');
      send(server, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const forget = endOnExit(destroy);

  let admin: pg.Client | undefined;
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], options);
    const statementsLib = existsSync(join(libDir(bin), 'pg_stat_statements.so'));
    const settings: Record<string, string> = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: dir,
      fsync: 'off',
      full_page_writes: 'off',
      ...(statementsLib ? { shared_preload_libraries: 'pg_stat_statements' } : {}),
    };
    const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
    child = spawn(join(bin, 'postgres'), args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const started = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`postgres not ready within ${START_LIMIT_MS / 1000} s:\n${output}`)), START_LIMIT_MS);
      started.once('error', reject);
      started.once('exit', (code, signal) => reject(new Error(`postgres exited early (${signal ?? code}):\n${output}`)));
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout!.on('data', onData);
      started.stderr!.on('data', onData);
    });
    started.removeAllListeners('exit');
    // Keep draining its output so a chatty server never blocks on a full pipe.
    started.stdout!.removeAllListeners('data').resume();
    started.stderr!.removeAllListeners('data').resume();

    const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
    admin = new pg.Client({ connectionString: url(), application_name: 'bench' });
    await admin.connect();
    const client = admin;
    const version = (await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int / 10000 AS v`)).rows[0]!.v;
    if (statementsLib) await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');

    return {
      port,
      version,
      statements: statementsLib,
      url,
      async freshDatabase(name) {
        const quoted = pg.escapeIdentifier(name);
        await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
        await client.query(`CREATE DATABASE ${quoted}`);
        return url(name);
      },
      async settle(databases) {
        for (const database of databases) {
          const one = new pg.Client({ connectionString: url(database), application_name: 'bench' });
          await one.connect();
          try {
            await one.query('VACUUM (ANALYZE)');
          } finally {
            await one.end();
          }
        }
        await client.query('CHECKPOINT');
      },
      async statementStats(database) {
        if (!statementsLib) return {};
        const { rows } = await client.query<{ query: string; calls: string }>(
          `SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 AND s.toplevel`,
          [database],
        );
        const out: Record<string, number> = {};
        for (const r of rows) out[r.query] = (out[r.query] ?? 0) + Number(r.calls);
        return out;
      },
      cpuSeconds() {
        const server = started.pid!;
        return cpuOf(server, true) + childrenOf(server).reduce((t, pid) => t + cpuOf(pid, false), 0);
      },
      async stop() {
        await client.end().catch(() => undefined);
        const exited = new Promise<void>((resolve) =>
          started.exitCode !== null || started.signalCode !== null ? resolve() : started.once('exit', () => resolve()),
        );
        // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to leave.
        send(started.pid!, 'SIGINT');
        const killer = setTimeout(destroy, 10_000);
        await exited;
        clearTimeout(killer);
        destroy();
        forget();
      },
    };
  } catch (error) {
    await admin?.end().catch(() => undefined);
    destroy();
    forget();
    throw error;
  }
}

/**
 * A statement's text as pg_stat_statements keeps it, named by what it does: `insert kv`, `select kv`,
 * `log_append`, `pg_notify`, `LISTEN`, …, so a table of them reads like Redis's command counters.
 */
export function statementKind(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  const call = /^SELECT (?:"?\w+"?\.)?(log_\w+|pg_notify)\(/i.exec(q);
  if (call) return call[1]!;
  const verb = (/^(?:WITH \w+ AS \(\s*)?(\w+)/i.exec(q)?.[1] ?? '?').toUpperCase();
  const table = /\b(?:INTO|UPDATE|FROM)\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(q.startsWith('WITH') ? q.slice(5) : q)?.[1];
  return table && ['SELECT', 'INSERT', 'UPDATE', 'DELETE'].includes(verb) ? `${verb.toLowerCase()} ${table}` : verb;
}
