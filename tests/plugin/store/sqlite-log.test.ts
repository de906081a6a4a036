import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LOG_LIMITS, frameId, type LogRead } from '../../../plugin/store/event-log.js';
import { openSqliteBackend } from '../../../plugin/store/sqlite-backend.js';
import { SqliteLog } from '../../../plugin/store/sqlite-log.js';
import { StoreUnavailableError } from '../../../plugin/store/types.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { framesOf, logContract, logPairOf, until } from './log-contract.js';

let dir: TempDir;
before(async () => {
  dir = await makeTempDir('ask-user-sqlite-log-');
});
after(async () => {
  await dir.remove();
});

// Two backends on one file: each has its own connections, as two processes would.
logContract('sqlite', async () => {
  const file = dir.file('contract.db');
  const one = await openSqliteBackend(file, { timeoutMs: 10_000 });
  const two = await openSqliteBackend(file, { timeoutMs: 10_000 });
  return logPairOf(one, two);
});

describe('sqlite event log specifics', () => {
  /** The log's rows of one key, read through a connection of the test's own, as another process would. */
  function rowsOf(file: string, key: string): { frames: number; runs: number; sessions: number; wakes: number } {
    const other = new DatabaseSync(file);
    try {
      const count = (table: string) => Number(other.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE key = ?`).get(key)!.n);
      return {
        frames: count('ask_user_log'),
        runs: count('ask_user_log_run'),
        sessions: count('ask_user_log_session'),
        wakes: count('ask_user_log_wake'),
      };
    } finally {
      other.close();
    }
  }

  it('polls for other processes only while something is watched', async () => {
    const backend = await openSqliteBackend(dir.file('poll.db'), { timeoutMs: 10_000 });
    try {
      const log = backend.log as SqliteLog;
      assert.ok(log instanceof SqliteLog);
      assert.equal(log.polling, false, 'no poll before the first watch');
      const stopA = await log.watch('poll:log:a', () => undefined);
      const stopB = await log.watch('poll:log:b', () => undefined);
      assert.equal(log.polling, true);
      stopA();
      assert.equal(log.polling, true, 'another key is still watched');
      stopB();
      assert.equal(log.polling, false, 'the last watcher stops the poll');
      await log.watch('poll:log:a', () => undefined);
      assert.equal(log.polling, true, 'and a new watcher starts it again');
    } finally {
      await backend.close();
    }
  });

  it('sweeps expired sessions and old notification rows out of the file', async () => {
    const file = dir.file('sweep.db');
    const backend = await openSqliteBackend(file, { timeoutMs: 10_000, sweepEveryMs: 20 });
    try {
      const log = backend.log!;
      await log.append('sweep:log:short', framesOf('r', 1, 3), { ...DEFAULT_LOG_LIMITS, windowMs: 50 });
      await log.append('sweep:log:long', framesOf('r', 1, 2), DEFAULT_LOG_LIMITS);
      await log.signal('sweep:log:long', 'kept');
      // A notification row from long ago, as a poller would no longer need it.
      const other = new DatabaseSync(file);
      other
        .prepare(`INSERT INTO ask_user_log_wake (key, origin, signal, at) VALUES ('sweep:log:old', 'x', NULL, ?)`)
        .run(Date.now() - 3_600_000);
      other.close();
      await until('the expired session and the old notification are deleted', () => {
        const short = rowsOf(file, 'sweep:log:short');
        return short.frames + short.runs + short.sessions === 0 && rowsOf(file, 'sweep:log:old').wakes === 0;
      });
      assert.deepEqual(rowsOf(file, 'sweep:log:long'), { frames: 2, runs: 1, sessions: 1, wakes: 2 }, 'a live session stays');
    } finally {
      await backend.close();
    }
  });

  it('waits out another connection holding the write lock, and after its deadline writes nothing', async () => {
    const file = dir.file('locked.db');
    const patient = await openSqliteBackend(file, { timeoutMs: 10_000 });
    const backend = await openSqliteBackend(file, { timeoutMs: 300 });
    const locker = new DatabaseSync(file);
    try {
      const log = backend.log!;
      locker.exec('BEGIN EXCLUSIVE');
      const waiting = patient.log!.append('lock:log:s', framesOf('r', 1, 1), DEFAULT_LOG_LIMITS);
      // Released while the append waits: it goes through.
      setTimeout(() => locker.exec('ROLLBACK'), 50);
      await waiting;
      assert.equal(rowsOf(file, 'lock:log:s').frames, 1);
      locker.exec('BEGIN EXCLUSIVE');
      await assert.rejects(log.append('lock:log:s', framesOf('r', 2, 2), DEFAULT_LOG_LIMITS), StoreUnavailableError);
      locker.exec('ROLLBACK');
      assert.deepEqual(rowsOf(file, 'lock:log:s'), { frames: 1, runs: 1, sessions: 1, wakes: 1 }, 'the refused append left nothing');
      const read = await log.read('lock:log:s');
      assert.deepEqual(read.kind === 'frames' && read.frames.map(frameId), ['r.1']);
    } finally {
      if (locker.isTransaction) locker.exec('ROLLBACK');
      locker.close();
      await patient.close();
      await backend.close();
    }
  });

  it('wakes watchers in another process, and reads what another process appended', async () => {
    const file = dir.file('processes.db');
    const key = 'procs:log:s';
    const backend = await openSqliteBackend(file, { timeoutMs: 10_000 });
    const child = startChild(file, key);
    try {
      const log = backend.log!;
      await child.ready;
      const seen: Array<string | undefined> = [];
      const stop = await log.watch(key, (signal) => seen.push(signal));

      await child.send({ op: 'append', frames: framesOf('child', 1, 2) });
      await until("the child process's append woke this one", () => seen.includes(undefined));
      await child.send({ op: 'signal', text: 'from the child' });
      await until("the child's signal arrived with its text", () => seen.includes('from the child'));

      child.woken.length = 0;
      await log.append(key, framesOf('parent', 1, 1), DEFAULT_LOG_LIMITS);
      await until('this append woke the child', () => child.woken.includes(null));
      await log.signal(key, 'stop');
      await until('the stop reached the child', () => child.woken.includes('stop'));

      const read = (await child.send({ op: 'read', after: { runId: 'child', seq: 1 } })) as LogRead;
      assert.deepEqual(read.kind === 'frames' && read.frames.map(frameId), ['child.2', 'parent.1']);
      stop();
    } finally {
      await child.exit();
      await backend.close();
    }
  });
});

/**
 * A Node process of its own on the same file: it watches `key` and reports each wake-up, and runs the
 * appends, signals and reads it is sent, one JSON line each.
 */
function startChild(file: string, key: string) {
  const backendModule = new URL('../../../plugin/store/sqlite-backend.ts', import.meta.url).href;
  const program = `
    import { createInterface } from 'node:readline';
    import { openSqliteBackend } from ${JSON.stringify(backendModule)};
    const backend = await openSqliteBackend(process.env.LOG_FILE, { timeoutMs: 10000 });
    const log = backend.log;
    const key = process.env.LOG_KEY;
    const limits = { windowMs: 600000, maxFrames: 10000, maxBytes: 1048576, maxRuns: 32 };
    await log.watch(key, (signal) => console.log(JSON.stringify({ woke: signal ?? null })));
    console.log(JSON.stringify({ ready: true }));
    for await (const line of createInterface({ input: process.stdin })) {
      const command = JSON.parse(line);
      let reply = null;
      if (command.op === 'append') await log.append(key, command.frames, limits);
      if (command.op === 'signal') await log.signal(key, command.text);
      if (command.op === 'read') reply = await log.read(key, command.after);
      console.log(JSON.stringify({ done: reply }));
    }
    await backend.close();
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
    cwd: fileURLToPath(new URL('../../../', import.meta.url)),
    env: { ...process.env, LOG_FILE: file, LOG_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const woken: Array<string | null> = [];
  const replies: unknown[] = [];
  let ready = false;
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { ready?: true; woke?: string | null; done?: unknown };
    if (message.ready) ready = true;
    if ('woke' in message) woken.push(message.woke ?? null);
    if ('done' in message) replies.push(message.done);
  });
  const alive = () => assert.ok(!exited, `the child process exited; stderr:\n${stderr}`);
  return {
    woken,
    ready: until('the child process is ready', () => (alive(), ready), 30_000),
    async send(command: object): Promise<unknown> {
      const count = replies.length;
      child.stdin.write(`${JSON.stringify(command)}\n`);
      await until(`the child process ran ${JSON.stringify(command).slice(0, 60)}`, () => (alive(), replies.length > count));
      return replies[count];
    },
    async exit(): Promise<void> {
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(killer);
    },
  };
}
