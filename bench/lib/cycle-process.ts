/**
 * The parent's handle on one bench/cycle-server.ts child: start it (optionally under another program such
 * as strace, which passes the IPC channel through), ask it things over IPC, stop it.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import type { FromServer, ToServer } from '../cycle-server.js';
import { CHILD_EXEC_ARGV, sibling } from './paths.js';

export interface CycleProcessOptions {
  /** A program and its arguments to run node under, e.g. strace. */
  wrapper?: string[];
}

export class CycleProcess {
  private readonly inbox: FromServer[] = [];
  private wake: (() => void) | undefined;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  port = 0;
  /** How long the server's startup sweep took and how many paused runs it checked (demo servers). */
  startupSweep: { ms: number; checked: number } | undefined;

  private constructor(
    readonly label: string,
    args: string[],
    { wrapper }: CycleProcessOptions,
  ) {
    const script = sibling(new URL('../', import.meta.url).href, 'cycle-server');
    // --expose-gc: memory is read after a full collection, so garbage does not pass for cost.
    const nodeArgs = ['--expose-gc', ...CHILD_EXEC_ARGV];
    const stdio: ['ignore', 'inherit', 'inherit', 'ipc'] = ['ignore', 'inherit', 'inherit', 'ipc'];
    this.child = wrapper
      ? spawn(wrapper[0]!, [...wrapper.slice(1), process.execPath, ...nodeArgs, script, ...args], { stdio })
      : fork(script, args, { execArgv: nodeArgs, stdio });
    this.child.on('message', (m: FromServer) => {
      this.inbox.push(m);
      this.wake?.();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => (resolve(code), this.wake?.())));
  }

  static async start(label: string, args: string[], options: CycleProcessOptions = {}): Promise<CycleProcess> {
    const p = new CycleProcess(label, args, options);
    const ready = await p.receive('ready', 120_000);
    p.port = ready.port;
    if (ready.sweepMs !== undefined) p.startupSweep = { ms: ready.sweepMs, checked: ready.checked ?? 0 };
    return p;
  }

  async receive<T extends FromServer['type']>(type: T, timeoutMs = 60_000): Promise<Extract<FromServer, { type: T }>> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === type);
      if (i >= 0) return this.inbox.splice(i, 1)[0] as Extract<FromServer, { type: T }>;
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`${this.label} server exited`);
      if (Date.now() > until) throw new Error(`${this.label} server did not answer ${type} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 500);
      });
    }
  }

  async ask<T extends FromServer['type']>(message: ToServer, reply: T, timeoutMs?: number) {
    this.child.send(message);
    return this.receive(reply, timeoutMs);
  }

  stats(gc = false) {
    return this.ask({ type: 'stats', gc }, 'stats');
  }

  /** Disconnecting makes the child close its store and exit; a wrapper such as strace then writes its report. */
  async stop(): Promise<void> {
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}
