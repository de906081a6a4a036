/**
 * Agent servers in child processes (fixtures/crash-server.ts): start one, wait for its `listening` line,
 * keep everything it prints, and learn how it ended (a kill -9 shows as signal SIGKILL).
 *
 * Starting `node --import tsx` costs ~0.9 s on 2 shared cores, most of it loading and transforming
 * modules one by one; the crash tests start ~100 processes. So the fixture is bundled once per test
 * process with esbuild (the transformer tsx itself runs on) into node_modules/.cache (node:sqlite is a
 * built-in, so nothing native is left out), and started with plain `node` (~0.35 s). The source is the same; without esbuild it falls
 * back to tsx.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { request } from 'node:http';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_BROWSER_COOKIE } from '../../helpers/browser-identity.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CRASH_SERVER = fileURLToPath(new URL('../fixtures/crash-server.ts', import.meta.url));

const live = new Set<ChildProcess>();
const built = new Set<string>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  // Bundles are per test process; children are gone by now, so nothing still reads them.
  for (const file of built) rmSync(file, { force: true });
});
/** SIGKILL every server this process started that is still running (for `after` hooks of failed tests). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
}

const bundles = new Map<string, Promise<string[]>>();

/** The argv that runs `script`: a bundle built once per test process, or tsx if esbuild is missing. */
function commandFor(script: string): Promise<string[]> {
  let argv = bundles.get(script);
  if (!argv) {
    argv = (async () => {
      try {
        const { build } = (await import('esbuild')) as typeof import('esbuild');
        const dir = join(ROOT, 'node_modules', '.cache', 'ask-user-hardening');
        await mkdir(dir, { recursive: true });
        const outfile = join(dir, `${basename(script, '.ts')}-${process.pid}.mjs`);
        await build({
          entryPoints: [script],
          outfile,
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node20',
          logLevel: 'silent',
          // Bundled CommonJS dependencies call require(); give the ES module one.
          banner: {
            js: "import { createRequire as __hardeningRequire } from 'node:module'; const require = __hardeningRequire(import.meta.url);",
          },
        });
        built.add(outfile);
        return [outfile];
      } catch {
        return ['--import', 'tsx', script];
      }
    })();
    bundles.set(script, argv);
  }
  return argv;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  exited: Promise<Exit>;
  /** SIGKILL, like a crash; resolves with how it ended. */
  kill(): Promise<Exit>;
  /** SIGTERM and wait (the server closes its store); SIGKILL after 5 s. */
  stop(): Promise<Exit>;
}

export interface SpawnOptions {
  /** The line announcing the URL (group 1). @default /^listening (\S+)$/m */
  ready?: RegExp;
  /** Run the source with tsx instead of a bundle (for a script whose paths depend on where it lives). */
  tsx?: boolean;
}

export async function spawnServer(script: string, env: Record<string, string>, options: SpawnOptions = {}): Promise<ServerProcess> {
  const { ready = /^listening (\S+)$/m, tsx = false } = options;
  const argv = tsx ? ['--import', 'tsx', script] : await commandFor(script);
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let stdout = '';
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      stdout += c.toString();
      const m = ready.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((e) => reject(new Error(`server exited (${e.signal ?? e.code}) before listening:\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    stdout: () => stdout,
    exited,
    kill() {
      child.kill('SIGKILL');
      return exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      const e = await exited;
      clearTimeout(timer);
      return e;
    },
  };
}

/** How the process ended, or SIGKILL it and fail when it is still running after `ms`. */
export async function exitWithin(proc: ServerProcess, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const result = await Promise.race([proc.exited, late]);
  clearTimeout(timer);
  if (result === 'late') {
    proc.child.kill('SIGKILL');
    throw new Error(`the server was still running ${ms} ms later; output:\n${proc.output()}`);
  }
  return result;
}

export interface Collected {
  status?: number;
  text: string;
  /** Set when the connection broke before the response ended (the server died). */
  error?: string;
}

/** POST JSON and keep whatever arrives, even from a server that dies mid-stream. */
export function postCollect(url: string, body: unknown): Promise<Collected> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    let text = '';
    let status: number | undefined;
    const done = (error?: string) => resolve({ ...(status !== undefined ? { status } : {}), text, ...(error ? { error } : {}) });
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), cookie: TEST_BROWSER_COOKIE },
      },
      (res) => {
        status = res.statusCode;
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => done());
        res.on('error', (e) => done(e.message));
        res.on('aborted', () => done('aborted'));
      },
    );
    req.on('error', (e) => done(e.message));
    req.end(payload);
  });
}

/** Audit entries a server printed (one JSON line each, tagged by consoleAuditLogger). */
export function auditLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"ask_user.audit"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Crash runs in waves of `n`: every server of a wave is listening (its startup sweep done) before any of
 * them gets its request. A sweep rolls forward any run it finds claimed but without its ToolResult — also
 * one that another live process is in the middle of resuming — which would move that run past the point
 * where its own process was meant to die.
 */
export async function waves<T>(
  items: readonly T[],
  n: number,
  start: (item: T) => Promise<ServerProcess>,
  fire: (item: T, proc: ServerProcess) => Promise<void>,
) {
  for (let i = 0; i < items.length; i += n) {
    const wave = items.slice(i, i + n);
    const procs = await Promise.all(wave.map(start));
    await Promise.all(wave.map((item, k) => fire(item, procs[k]!)));
  }
}

/**
 * The reply to `request`, sent to a server that must die by kill -9 at `point` (the crash server's
 * CRASH_AT): it did, and said where. A server that outlives its point says why in the error (its reply,
 * e.g. session_busy). The server's output goes to `outputs`.
 */
export async function repliedBeforeCrash(
  proc: ServerProcess,
  request: Promise<Collected>,
  point: string,
  outputs: string[],
): Promise<Collected> {
  const [reply, exit] = await Promise.all([
    request,
    exitWithin(proc, 20_000).catch(async (err: Error) => {
      throw new Error(`${err.message}\nits reply: ${(await request).text}`);
    }),
  ]);
  outputs.push(proc.stdout());
  assert.equal(exit.signal, 'SIGKILL', `the server died by kill -9, not otherwise:\n${proc.output()}`);
  assert.match(proc.stdout(), new RegExp(`^CRASH ${point}$`, 'm'), 'it died at the named point');
  return reply;
}
