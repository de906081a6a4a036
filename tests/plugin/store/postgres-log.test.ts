import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { DEFAULT_LOG_LIMITS, frameId } from '../../../plugin/store/event-log.js';
import { PostgresBackend } from '../../../plugin/store/postgres-backend.js';
import { channelOf } from '../../../plugin/store/postgres-log.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import { framesOf, logContract, logPairOf, until } from './log-contract.js';

let postgres: PostgresServer;
before(async () => {
  postgres = await startPostgresServer();
});
after(async () => {
  await postgres.stop();
});

const open = (namespace = 'log_contract', sweepEveryMs?: number) => {
  const target = parseStoreUrl(postgres.url) as Extract<ReturnType<typeof parseStoreUrl>, { kind: 'postgres' }>;
  return PostgresBackend.open(target, { timeoutMs: 10_000, namespace, ...(sweepEveryMs ? { sweepEveryMs } : {}) });
};

// Two backends on one database: two pools and, once watched, two LISTEN connections, as two instances have.
logContract('postgres', async () => logPairOf(await open(), await open()));

describe('postgres event log specifics', () => {
  /** A plain connection of the test's own, to look at what the log left in the database. */
  async function observer(): Promise<Client> {
    const client = new Client({ connectionString: postgres.url });
    await client.connect();
    return client;
  }

  /** The server's connections from the kit, other than the observer's own. */
  async function kitConnections(client: Client): Promise<Array<{ pid: number; query: string }>> {
    const { rows } = await client.query<{ pid: number; query: string }>(
      `SELECT pid, query FROM pg_stat_activity WHERE application_name = 'ask-user-kit' AND pid <> pg_backend_pid()`,
    );
    return rows;
  }

  it('keeps a session in its tables, and one append is one call that keeps the totals', async () => {
    const backend = await open('layout');
    const client = await observer();
    try {
      const key = 'layout:log:s1';
      await backend.log.append(key, framesOf('r1', 1, 2), DEFAULT_LOG_LIMITS);
      await backend.log.append(key, framesOf('r2', 1, 1), DEFAULT_LOG_LIMITS);
      const { rows: runs } = await client.query(
        `SELECT run, started, frames, bytes::int, last_seq::int FROM layout.log_run ORDER BY started`,
      );
      assert.deepEqual(runs, [
        { run: 'r1', started: 1, frames: 2, bytes: 24, last_seq: 2 },
        { run: 'r2', started: 2, frames: 1, bytes: 12, last_seq: 1 },
      ]);
      const { rows: frames } = await client.query(`SELECT run, seq::int, event, data, bytes FROM layout.log_frame WHERE run = 'r2'`);
      assert.deepEqual(frames, [{ run: 'r2', seq: 1, event: 'delta', data: '{"n":1}', bytes: 12 }]);
      const { rows: sessions } = await client.query<{ left: string }>(
        `SELECT expires_at - (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS left FROM layout.log_session WHERE key = $1`,
        [key],
      );
      const left = Number(sessions[0]!.left);
      assert.ok(left > DEFAULT_LOG_LIMITS.windowMs - 60_000 && left <= DEFAULT_LOG_LIMITS.windowMs, `the window is renewed (${left} ms)`);
    } finally {
      await client.end();
      await backend.close();
    }
  });

  it('sweeps expired sessions with their runs and frames', async () => {
    const backend = await open('sweep', 30);
    const client = await observer();
    try {
      await backend.log.append('sweep:log:short', framesOf('r', 1, 3), { ...DEFAULT_LOG_LIMITS, windowMs: 50 });
      await backend.log.append('sweep:log:long', framesOf('r', 1, 2), DEFAULT_LOG_LIMITS);
      /** Rows of the session in the frame, run and session tables. */
      const rowsOf = async (key: string) => {
        const { rows } = await client.query<{ frames: string; runs: string; sessions: string }>(
          `SELECT (SELECT count(*) FROM sweep.log_frame WHERE key = $1) AS frames, (SELECT count(*) FROM sweep.log_run WHERE key = $1) AS runs,
             (SELECT count(*) FROM sweep.log_session WHERE key = $1) AS sessions`,
          [key],
        );
        return Object.values(rows[0]!).map(Number);
      };
      await until('the expired session is deleted', async () => (await rowsOf('sweep:log:short')).every((n) => n === 0));
      assert.deepEqual(await rowsOf('sweep:log:long'), [2, 1, 1], 'a live session stays');
    } finally {
      await client.end();
      await backend.close();
    }
  });

  it('watches on one LISTEN connection, made on the first watch, with a channel per watched key', async () => {
    const client = await observer();
    const earlier = new Set((await kitConnections(client)).map((c) => c.pid));
    const backend = await open('watch');
    try {
      const log = backend.log;
      const opened = async () => (await kitConnections(client)).filter((c) => !earlier.has(c.pid));
      await log.append('watch:log:a', framesOf('r', 1, 1), DEFAULT_LOG_LIMITS);
      await log.signal('watch:log:a', 'nobody listens');
      const own = await opened();
      assert.deepEqual(
        own.filter((c) => c.query.startsWith('LISTEN')),
        [],
        'appends and signals open no listener',
      );
      const keys = Array.from({ length: 200 }, (_, i) => `watch:log:s${i}`);
      const stops = await Promise.all(keys.map((key) => log.watch(key, () => undefined)));
      const listeners = (await opened()).filter((c) => c.query.startsWith('LISTEN'));
      assert.equal(listeners.length, 1, 'one listener connection');
      assert.equal((await opened()).length, own.length + 1);
      for (const stop of stops) stop();
      const seen: Array<string | undefined> = [];
      const stop = await log.watch(keys[7]!, (signal) => seen.push(signal));
      await log.signal(keys[7]!, 'back');
      await until('a key watched again is woken', () => seen.includes('back'));
      stop();
      await backend.close();
      await until('every connection is closed', async () => (await opened()).length === 0);
    } finally {
      await client.end();
      await backend.close();
    }
  });

  it('wakes every watcher when the listener connection comes back, and listens again to every channel', async () => {
    const backend = await open('lost');
    const client = await observer();
    try {
      // More channels than one batch of LISTENs after the reconnect.
      const keys = Array.from({ length: 1200 }, (_, i) => `lost:log:s${i}`);
      const woken = new Set<string>();
      const heard: string[] = [];
      const stops = await Promise.all(
        keys.map((key) => backend.log.watch(key, (signal) => (signal === undefined ? woken.add(key) : heard.push(`${key} ${signal}`)))),
      );
      const listener = (await kitConnections(client)).find((c) => c.query.startsWith('LISTEN'));
      assert.ok(listener, 'the listener connection is there');
      await client.query('SELECT pg_terminate_backend($1)', [listener.pid]);
      await until('every watcher is woken after the reconnect', () => woken.size === keys.length);
      await backend.log.signal(keys[1100]!, 'again');
      await backend.log.signal(keys[3]!, 'again');
      await until('and the channels are heard again', () => heard.length === 2);
      assert.deepEqual(heard.sort(), [`${keys[1100]} again`, `${keys[3]} again`]);
      for (const stop of stops) stop();
    } finally {
      await client.end();
      await backend.close();
    }
  });

  it('resolves no watch of a channel before the LISTEN of that channel is in place', async () => {
    const one = await open('first_listen');
    const two = await open('first_listen');
    try {
      for (let i = 0; i < 20; i++) {
        const key = `first:log:s${i}`;
        const seen: Array<string | undefined> = [];
        // The first watch sends the LISTEN; the second, made while it is on its way, must wait for it too.
        const first = one.log.watch(key, () => undefined);
        const stop = await one.log.watch(key, (signal) => seen.push(signal));
        await two.log.signal(key, 'right after');
        await until('the second watcher hears a signal sent right after its watch resolved', () => seen.includes('right after'));
        stop();
        (await first)();
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('sends the LISTENs and UNLISTENs asked while one is on its way as one batch, in order', async () => {
    const one = await open('batched');
    const two = await open('batched');
    // Counts the statements the listener connection is sent, on the real pg client.
    const sent: string[] = [];
    const query = Client.prototype.query;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && /^(UN)?LISTEN /.test(args[0])) sent.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const keys = Array.from({ length: 200 }, (_, i) => `batched:log:s${i}`);
      const heard = new Set<string>();
      const stops = await Promise.all(keys.map((key) => one.log.watch(key, (signal) => signal === key && heard.add(key))));
      assert.ok(sent.length <= 10, `200 LISTENs in ${sent.length} round trips`);
      // A channel asked for while the connection is made is listened by the connection too: twice is harmless.
      assert.equal(new Set(sent.join(' ').match(/\bLISTEN "\w+"/g)).size, 200, 'every channel listened');
      await Promise.all(keys.map((key) => two.log.signal(key, key)));
      await until('every watcher hears its own signal', () => heard.size === keys.length);
      sent.length = 0;
      for (const stop of stops) stop();
      // Watching a channel again right after its UNLISTEN was asked: the LISTEN goes after it and stays.
      const again: string[] = [];
      const stop = await one.log.watch(keys[0]!, (signal) => again.push(signal ?? ''));
      await until('the UNLISTENs went', () => sent.join(' ').match(/\bUNLISTEN /g)?.length === 200);
      assert.ok(sent.length <= 10, `200 UNLISTENs and a LISTEN in ${sent.length} round trips`);
      await two.log.signal(keys[0]!, 'still listened');
      await until('the channel listened again hears a signal', () => again.includes('still listened'));
      stop();
    } finally {
      Client.prototype.query = query;
      await one.close();
      await two.close();
    }
  });

  it('starts an expired session afresh once when two instances append to it at the same moment', async () => {
    const one = await open('restart');
    const two = await open('restart');
    try {
      for (let i = 0; i < 20; i++) {
        const key = `restart:log:s${i}`;
        await one.log.append(key, framesOf('old', 1, 2), { ...DEFAULT_LOG_LIMITS, windowMs: 20 });
        await new Promise((resolve) => setTimeout(resolve, 30));
        // Both find the session past its window; only the first may empty it, or the other's frames go too.
        await Promise.all([
          one.log.append(key, framesOf('a', 1, 2), DEFAULT_LOG_LIMITS),
          two.log.append(key, framesOf('b', 1, 2), DEFAULT_LOG_LIMITS),
        ]);
        const read = await one.log.read(key);
        assert.deepEqual((read.kind === 'frames' ? read.frames.map(frameId) : []).sort(), ['a.1', 'a.2', 'b.1', 'b.2'], `round ${i}`);
      }
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('notifies on a channel named by a hash of the key, for any key length', async () => {
    const long = `long:log:${'x'.repeat(500)}`;
    assert.match(channelOf(long), /^ask_user_[0-9a-f]{40}$/);
    assert.notEqual(channelOf(long), channelOf(`${long}y`));
    const one = await open('channels');
    const two = await open('channels');
    try {
      const seen: Array<string | undefined> = [];
      const stop = await one.log.watch(long, (signal) => seen.push(signal));
      await two.log.append(long, framesOf('r', 1, 1), DEFAULT_LOG_LIMITS);
      await until('the append woke the other backend', () => seen.includes(undefined));
      const read = await one.log.read(long);
      assert.deepEqual(read.kind === 'frames' && read.frames.map(frameId), ['r.1']);
      stop();
    } finally {
      await one.close();
      await two.close();
    }
  });
});
