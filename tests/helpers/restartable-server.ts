/**
 * One server on one store through a crash, as a host lives through one: start a server process, wait
 * until it listens, kill it with -9, and start it again on the same store and environment. The process is
 * the demo server (demo-server.ts) unless `start` brings another, such as the hardening crash server,
 * which may also die by its own kill -9 at a named point (`firstEnv: { CRASH_AT }`).
 */
import type { ChildProcess } from 'node:child_process';
import { startDemoServer, type DemoServer } from './demo-server.js';

/** A started server process, listening at `url`. */
export interface ServerProcessHandle {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGKILL; resolves when the process is gone. */
  kill(): Promise<unknown>;
  /** SIGTERM; resolves when the process is gone. */
  stop(): Promise<unknown>;
}

export type StartServer<P extends ServerProcessHandle> = (env: Record<string, string>) => Promise<P>;

export interface RestartableServerOptions<P extends ServerProcessHandle> {
  /** The store every start is given as `ASK_USER_STORE`, e.g. `sqlite://<file>`. */
  store: string;
  /** Environment of every start: the model's endpoint, the runtime, … @default {} */
  env?: Record<string, string>;
  /** Environment of the first start only, e.g. `{ CRASH_AT }` for a crash server that kills itself. @default {} */
  firstEnv?: Record<string, string>;
  /** Starts one process and resolves once it listens. @default the demo server, `startDemoServer({ env })` */
  start?: StartServer<P>;
}

export interface RestartableServer<P extends ServerProcessHandle> {
  /** The store every start is given. */
  readonly store: string;
  /** The running process: the latest start. */
  readonly current: P;
  /** The running process's URL; each start listens on a free port of its own. */
  readonly url: string;
  /** kill -9 the running process, like a crash; resolves when it is gone. */
  kill(): Promise<void>;
  /** Start again on the same store and `env` once the running process is gone; resolves once it listens. */
  restart(): Promise<P>;
  /** SIGTERM the running process and wait; nothing to do when it is gone already. */
  stop(): Promise<void>;
}

const gone = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

export function startRestartableServer<P extends ServerProcessHandle>(
  options: RestartableServerOptions<P> & { start: StartServer<P> },
): Promise<RestartableServer<P>>;
export function startRestartableServer(options: RestartableServerOptions<DemoServer>): Promise<RestartableServer<DemoServer>>;
export async function startRestartableServer(
  options: RestartableServerOptions<ServerProcessHandle>,
): Promise<RestartableServer<ServerProcessHandle>> {
  const { store, env = {}, firstEnv = {}, start = (startEnv) => startDemoServer({ env: startEnv }) } = options;
  let current = await start({ ...env, ...firstEnv, ASK_USER_STORE: store });
  return {
    store,
    get current() {
      return current;
    },
    get url() {
      return current.url;
    },
    async kill() {
      if (!gone(current.child)) await current.kill();
    },
    async restart() {
      if (!gone(current.child)) throw new Error(`the server at ${current.url} is still running; kill() it before restart()`);
      current = await start({ ...env, ASK_USER_STORE: store });
      return current;
    },
    async stop() {
      if (!gone(current.child)) await current.stop();
    },
  };
}
