/**
 * The demo server as a child process (`node --import tsx demo/server.ts`, or `npm run demo`), for tests
 * that need a real process: kill -9 and restart on the same store, two instances on one Redis. Resolves
 * once the server printed its listening line; the URL is read from that line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /ask-user-kit demo listening on (http:\/\/\S+)/;

export interface DemoServerOptions {
  /** Extra environment (PORT defaults to 0: any free port). */
  env?: Record<string, string>;
  /** `node` runs demo/server.ts directly; `npm` runs `npm run demo` (install check, page build). @default 'node' */
  via?: 'node' | 'npm';
  /** How long to wait for the listening line. @default 60000 (npm: 240000) */
  startTimeoutMs?: number;
}

export interface DemoServer {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the output once it matches `pattern` (work the server does after it listens). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGKILL, like a crash; resolves when the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) killTree(child, 'SIGKILL');
});

function killTree(child: ChildProcess, signal: NodeJS.Signals) {
  // npm runs the server in a child of its own: signal the whole process group.
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const { env = {}, via = 'node' } = options;
  const timeoutMs = options.startTimeoutMs ?? (via === 'npm' ? 240_000 : 60_000);
  const cmd = via === 'npm' ? ['npm', ['run', '--silent', 'demo']] : [process.execPath, ['--import', 'tsx', 'demo/server.ts']];
  const child = spawn(cmd[0] as string, cmd[1] as string[], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => (live.delete(child), resolve())));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`demo server printed no listening line within ${timeoutMs} ms; output:\n${out}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = LISTENING.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`demo server exited (${signal ?? code}) before listening; output:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    async waitForOutput(pattern, waitMs = 60_000) {
      for (const deadline = Date.now() + waitMs; !pattern.test(out);) {
        if (Date.now() > deadline) throw new Error(`no output matching ${pattern} within ${waitMs} ms; output:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return out;
    },
    async kill() {
      killTree(child, 'SIGKILL');
      await exited;
    },
    async stop() {
      killTree(child, 'SIGTERM');
      await exited;
    },
  };
}
