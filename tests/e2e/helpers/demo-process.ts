/**
 * The real demo server (`demo/server.ts`) as a child process, the way `npm run demo` runs it, pointed at
 * a model the test controls. Its stdout is kept line by line: the audit lines (`ask_user.audit`) are the
 * server's own log of what happened, and they survive a kill -9 where the in-memory /api/trace does not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const READY = /ask-user-kit demo listening on (http:\/\/\S+)/;

export interface DemoProcessOptions {
  /** OpenAI-compatible endpoint, e.g. the scripted model's baseURL. */
  baseURL: string;
  /** `memory`, `sqlite://<file>`, `redis://…` */
  store: string;
  /** @default 0: any free port; a restart reuses the port the first start got. */
  port?: number;
  ttlMs?: number;
  hostMode?: 'persistent' | 'in-process';
  /** Extra environment. */
  env?: Record<string, string>;
}

export interface OutputLine {
  at: string;
  /** Which start of the server (0 first, 1 after the first restart, …). */
  generation: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface DemoProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Every output line of every generation, in order. */
  readonly output: OutputLine[];
  /** The parsed `ask_user.audit` lines, in order. */
  audit(): Array<Record<string, unknown>>;
  /** SIGKILL: gone at once, nothing flushed, like a crash. */
  kill9(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** Start again on the same port and environment (after kill9 or stop). */
  restart(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startDemoProcess(options: DemoProcessOptions): Promise<DemoProcess> {
  const output: OutputLine[] = [];
  let generation = -1;
  let port = options.port ?? 0;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    OPENAI_BASE_URL: options.baseURL,
    OPENAI_API_KEY: 'e2e',
    OPENAI_MODEL: 'e2e-scripted',
    ASK_USER_STORE: options.store,
    ASK_USER_HOST: options.hostMode ?? 'persistent',
    // The acceptance evidence includes the developer trace, which is off unless asked for.
    ASK_USER_TRACE: '1',
    ...(options.ttlMs ? { ASK_USER_TTL_MS: String(options.ttlMs) } : {}),
    ...options.env,
  };

  let child: ChildProcess;
  const launch = async () => {
    generation += 1;
    const gen = generation;
    env.PORT = String(port);
    child = spawn(process.execPath, ['--import', 'tsx', 'demo/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    child.once('exit', () => live.delete(child));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`demo server did not print its URL within 30 s; output:\n${dump(output, gen)}`)),
        30_000,
      );
      const onLine = (stream: 'stdout' | 'stderr') => (line: string) => {
        output.push({ at: new Date().toISOString(), generation: gen, stream, text: line });
        const m = READY.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      lines(child.stdout!, onLine('stdout'));
      lines(child.stderr!, onLine('stderr'));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`demo server exited (${signal ?? code}) before listening; output:\n${dump(output, gen)}`));
      });
    });
    port = Number(new URL(url).port);
  };
  await launch();

  const exited = () =>
    new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );

  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    output,
    audit: () => auditLines(output),
    async kill9() {
      child.kill('SIGKILL');
      await exited();
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited();
      clearTimeout(timer);
    },
    async restart() {
      if (child.exitCode === null && child.signalCode === null)
        throw new Error('demo server is still running; kill9() or stop() it before restart()');
      await launch();
    },
  };
}

/** The JSON lines of `type` among `output`'s stdout lines, each with the generation that printed it. */
export function jsonLines(output: readonly OutputLine[], type: string): Array<Record<string, unknown>> {
  return output.flatMap((l) => {
    if (l.stream !== 'stdout' || !l.text.startsWith('{')) return [];
    try {
      const parsed = JSON.parse(l.text) as Record<string, unknown>;
      return parsed.type === type ? [{ ...parsed, generation: l.generation }] : [];
    } catch {
      return [];
    }
  });
}

/** The parsed `ask_user.audit` lines of `output`, in order. */
export const auditLines = (output: readonly OutputLine[]) => jsonLines(output, 'ask_user.audit');

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    rest += chunk;
    let cut: number;
    while ((cut = rest.indexOf('\n')) >= 0) {
      onLine(rest.slice(0, cut));
      rest = rest.slice(cut + 1);
    }
  });
  stream.on('end', () => rest && onLine(rest));
}

const dump = (output: OutputLine[], gen: number) =>
  output
    .filter((l) => l.generation === gen)
    .map((l) => `${l.stream}: ${l.text}`)
    .join('\n');
