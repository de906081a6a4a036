/**
 * The Redis backend's event log (event-log.ts). Under a session's key K:
 *
 * - `K#runs`: LIST of the session's run ids, in the order they started;
 * - `K#bytes`: HASH run id → bytes its kept frames cost (event-log.ts, frameBytes);
 * - `K#run:<runId>`: LIST of the run's kept frames, oldest first, each `<seq>:<bytes>:<event length>:<event><data>`
 *   (the data as given, no escaping; the script only reads the two numbers in front);
 * - channel `K#wake@<db>`: a message per append and per signal (pub/sub ignores the database number, so
 *   the channel carries it).
 *
 * '#' never occurs in a run id, so no suffix of one session's keys is another session's. Every key of a
 * session gets the same PEXPIRE on each append, so the session's log expires as one. The scripts derive
 * the run keys from K: a standalone Redis allows it, and on Redis Cluster K ends with the session's
 * `{slot tag}` (physical-keys.ts), so every derived key and the channel hash to K's slot.
 *
 * How it talks to Redis is a LogConnection: one server (below), or a cluster (redis-cluster-log.ts), which
 * publishes and subscribes with sharded pub/sub. Watching subscribes for each watched key, unsubscribes
 * when its last listener goes; idle watchers cost nothing beyond the subscriber connection(s).
 */
import { createHash } from 'node:crypto';
import type { RedisClientType } from '@keyv/redis';
import {
  framesAfter,
  frameBytes,
  keptFrom,
  type LogBackend,
  type LogFrame,
  type LogLimits,
  type LogPosition,
  type LogRead,
} from './event-log.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

/** The client the backend makes: no modules, functions or scripts of its own, RESP2, no type mapping. */
export type RedisClient = RedisClientType<{}, {}, {}, 2, {}>;

export interface ScriptOptions {
  keys: string[];
  arguments: string[];
}
export interface ScriptRunner {
  evalSha(sha: string, options: ScriptOptions): Promise<unknown>;
  eval(script: string, options: ScriptOptions): Promise<unknown>;
}

/**
 * A Lua script sent by EVALSHA, which saves sending its text each time; the server forgets scripts on
 * restart, so it falls back to EVAL once. Redis runs a script atomically.
 */
export class LuaScript {
  readonly #source: string;
  readonly #sha: string;

  get source(): string {
    return this.#source;
  }

  get sha(): string {
    return this.#sha;
  }

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: ScriptRunner, options: ScriptOptions): Promise<unknown> {
    try {
      return await client.evalSha(this.#sha, options);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, options);
    }
  }
}

/** How the log reaches Redis: one server, or a cluster by each key's slot. */
export interface LogConnection {
  /** Runs a script; every key it is given sits in one slot. */
  run(script: LuaScript, options: ScriptOptions): Promise<unknown>;
  /** The script that appends, publishing with this connection's kind of pub/sub. */
  readonly append: LuaScript;
  publish(channel: string, message: string): Promise<unknown>;
  /** The wake-up channel of a log key. */
  channel(key: string): string;
  /** What a log key's own keys start with: the key itself, or on a cluster one that fixes its slot. */
  base(key: string): string;
  /**
   * Opens the subscribing side; `onBack` runs whenever it comes back from a lost connection (subscriptions
   * restored), since what was published meanwhile is lost.
   */
  openSubscriber(onBack: () => void): Promise<LogSubscriber>;
}

export interface LogSubscriber {
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

/** What an append publishes; a signal publishes SIGNAL_PREFIX and its text. */
const APPEND_MESSAGE = 'append';
const SIGNAL_PREFIX = 'signal:';

// KEYS: run order, bytes per run, this run's frames. ARGV: run id, window ms, max frames, max bytes, max
// runs, run key prefix, channel, '1' when the frames replace the run's older ones (the batch alone was
// over the bounds), then the frames. Frames at or before the run's last kept seq are skipped, so an append
// retried after a timeout adds nothing twice. `publish` is PUBLISH, or SPUBLISH on a cluster.
export const appendScript = (publish: 'PUBLISH' | 'SPUBLISH'): LuaScript =>
  new LuaScript(`
local runs, sizes, run = KEYS[1], KEYS[2], KEYS[3]
local id, prefix = ARGV[1], ARGV[6]
local maxFrames, maxBytes, maxRuns = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function bytesOf(frame) return tonumber(string.match(frame, '^%d+:(%d+):')) end
local function seqOf(frame) return tonumber(string.match(frame, '^(%d+):')) end
if redis.call('HEXISTS', sizes, id) == 0 then
  redis.call('RPUSH', runs, id)
  redis.call('HSET', sizes, id, 0)
  while redis.call('LLEN', runs) > maxRuns do
    local old = redis.call('LPOP', runs)
    redis.call('DEL', prefix .. old)
    redis.call('HDEL', sizes, old)
  end
elseif ARGV[8] == '1' then
  redis.call('DEL', run)
  redis.call('HSET', sizes, id, 0)
end
local last = redis.call('LINDEX', run, -1)
local lastSeq = last and seqOf(last) or -1
local bytes = tonumber(redis.call('HGET', sizes, id))
local batch = {}
local function flush()
  if #batch > 0 then redis.call('RPUSH', run, unpack(batch)) end
  batch = {}
end
for i = 9, #ARGV do
  if seqOf(ARGV[i]) > lastSeq then
    batch[#batch + 1] = ARGV[i]
    bytes = bytes + bytesOf(ARGV[i])
    -- unpack is bounded by Lua's stack.
    if #batch == 1000 then flush() end
  end
end
flush()
local excess = redis.call('LLEN', run) - maxFrames
if excess > 0 then
  for _, frame in ipairs(redis.call('LRANGE', run, 0, excess - 1)) do bytes = bytes - bytesOf(frame) end
  redis.call('LTRIM', run, excess, -1)
end
while bytes > maxBytes do
  local frame = redis.call('LPOP', run)
  if not frame then bytes = 0 break end
  bytes = bytes - bytesOf(frame)
end
redis.call('HSET', sizes, id, bytes)
redis.call('PEXPIRE', runs, ARGV[2])
redis.call('PEXPIRE', sizes, ARGV[2])
for _, kept in ipairs(redis.call('LRANGE', runs, 0, -1)) do redis.call('PEXPIRE', prefix .. kept, ARGV[2]) end
redis.call('${publish}', ARGV[7], '${APPEND_MESSAGE}')
return 1
`);
const APPEND = appendScript('PUBLISH');

// KEYS: run order. ARGV: run key prefix, the position's run ('' for none) and seq. Returns the runs from the
// position's on, each as { run id, frames... }; none when the position's run is not kept. Of the
// position's run it sends the frames from the position on: seqs of a run are consecutive, so the position
// sits at a known index (checked there, else the whole run goes).
const READ = new LuaScript(`
local runs = redis.call('LRANGE', KEYS[1], 0, -1)
local from = 1
if ARGV[2] ~= '' then
  from = nil
  for i, id in ipairs(runs) do
    if id == ARGV[2] then from = i break end
  end
  if not from then return {} end
end
local function seqOf(frame) return tonumber(string.match(frame, '^(%d+):')) end
local out = {}
for i = from, #runs do
  local key = ARGV[1] .. runs[i]
  local start = 0
  if i == from and ARGV[2] ~= '' then
    local first = redis.call('LINDEX', key, 0)
    local at = first and tonumber(ARGV[3]) - seqOf(first)
    if at and at > 0 then
      local there = redis.call('LINDEX', key, at)
      if there and seqOf(there) == tonumber(ARGV[3]) then start = at end
    end
  end
  local frames = redis.call('LRANGE', key, start, -1)
  table.insert(frames, 1, runs[i])
  out[#out + 1] = frames
end
return out
`);

// KEYS: run order. ARGV: run key prefix. The last run's id and last frame, or nil.
const LAST = new LuaScript(`
local id = redis.call('LINDEX', KEYS[1], -1)
if not id then return nil end
local frame = redis.call('LINDEX', ARGV[1] .. id, -1)
if not frame then return nil end
return { id, frame }
`);

type Listener = (signal?: string) => void;

export interface RedisLogOptions {
  /** For error messages, without credentials. */
  label: string;
  /** Connecting and closing the subscriber connection take at most this. */
  timeoutMs: number;
}

export class RedisLog implements LogBackend {
  readonly #connection: LogConnection;
  readonly #label: string;
  readonly #timeoutMs: number;
  /** The subscribing side, opened on the first watch. */
  #subscriber: Promise<LogSubscriber> | undefined;
  /** Every current watcher, to be woken when the subscriber comes back from a lost connection. */
  readonly #watchers = new Set<Listener>();
  #closed = false;

  /** A standalone server's client, or a connection of another shape (a cluster's). */
  constructor(client: RedisClient | LogConnection, { label, timeoutMs }: RedisLogOptions) {
    this.#connection = 'openSubscriber' in client ? client : serverConnection(client, { label, timeoutMs });
    this.#label = label;
    this.#timeoutMs = timeoutMs;
  }

  async append(logKey: string, frames: readonly LogFrame[], limits: LogLimits): Promise<void> {
    if (frames.length === 0) return;
    const key = this.#connection.base(logKey);
    const runId = frames[0]!.runId;
    // A batch over the run's bounds by itself keeps only its newest frames, and none of the run's older ones.
    const start = keptFrom(frames, limits);
    await this.#connection.run(this.#connection.append, {
      keys: [`${key}#runs`, `${key}#bytes`, `${key}#run:${runId}`],
      arguments: [
        runId,
        String(limits.windowMs),
        String(limits.maxFrames),
        String(limits.maxBytes),
        String(limits.maxRuns),
        `${key}#run:`,
        this.#connection.channel(key),
        start > 0 ? '1' : '0',
        ...frames.slice(start).map(encodeFrame),
      ],
    });
  }

  async read(logKey: string, after?: LogPosition): Promise<LogRead> {
    const key = this.#connection.base(logKey);
    const reply = (await this.#connection.run(READ, {
      keys: [`${key}#runs`],
      arguments: [`${key}#run:`, after?.runId ?? '', String(after?.seq ?? 0)],
    })) as string[][];
    const runs = reply.map(([runId, ...frames]) => ({ runId: runId!, frames: frames.map((raw) => decodeFrame(runId!, raw)) }));
    return framesAfter(runs, after);
  }

  async last(logKey: string): Promise<LogFrame | undefined> {
    const key = this.#connection.base(logKey);
    const reply = (await this.#connection.run(LAST, { keys: [`${key}#runs`], arguments: [`${key}#run:`] })) as [string, string] | null;
    return reply ? decodeFrame(reply[0], reply[1]) : undefined;
  }

  async watch(key: string, listener: Listener): Promise<() => void> {
    const subscriber = await this.#connectSubscriber();
    const channel = this.#connection.channel(this.#connection.base(key));
    // node-redis keeps a listener until the server confirms the UNSUBSCRIBE; this one stops at once.
    let active = true;
    const wake: Listener = (signal) => {
      if (!active) return;
      try {
        listener(signal);
      } catch {
        // A listener's failure is its own; it must not reach the connection's reply parsing.
      }
    };
    const onMessage = (message: string) => wake(message.startsWith(SIGNAL_PREFIX) ? message.slice(SIGNAL_PREFIX.length) : undefined);
    // node-redis sends SUBSCRIBE only for a channel it is not subscribed to, and UNSUBSCRIBE only when the
    // channel's last listener goes; either way the promise settles once the server has it.
    await subscriber.subscribe(channel, onMessage);
    this.#watchers.add(wake);
    return () => {
      if (!active) return;
      active = false;
      this.#watchers.delete(wake);
      if (subscriber.isOpen) subscriber.unsubscribe(channel, onMessage).catch(() => undefined);
    };
  }

  async signal(key: string, signal: string): Promise<void> {
    await this.#connection.publish(this.#connection.channel(this.#connection.base(key)), `${SIGNAL_PREFIX}${signal}`);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watchers.clear();
    const subscriber = await this.#subscriber?.catch(() => undefined);
    this.#subscriber = undefined;
    if (subscriber) await subscriber.close();
  }

  #wakeAll(): void {
    for (const wake of [...this.#watchers]) wake();
  }

  #connectSubscriber(): Promise<LogSubscriber> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError(`${this.#label}: the event log is closed`));
    this.#subscriber ??= this.#connection
      .openSubscriber(() => this.#wakeAll())
      .catch((error: unknown) => {
        this.#subscriber = undefined;
        throw error;
      });
    return this.#subscriber;
  }
}

/** One standalone server: regular pub/sub on a second connection, the channel naming the database. */
function serverConnection(client: RedisClient, { label, timeoutMs }: RedisLogOptions): LogConnection {
  const database = client.options?.database ?? 0;
  return {
    run: (script, options) => script.run(client, options),
    append: APPEND,
    publish: (channel, message) => client.publish(channel, message),
    // Pub/sub ignores the database number, so the channel carries it.
    channel: (key) => `${key}#wake@${database}`,
    base: (key) => key,
    async openSubscriber(onBack) {
      // Same options as the command connection (no offline queue, capped reconnects); after a reconnect
      // node-redis subscribes again to every channel that has listeners.
      const subscriber = client.duplicate();
      subscriber.on('error', () => undefined);
      // 'ready' comes after the subscriptions are back (on the first connect there is no watcher yet).
      subscriber.on('ready', onBack);
      try {
        await withinBudget(`connecting the event log's subscriber to ${label}`, timeoutMs, () => subscriber.connect());
      } catch (error) {
        if (subscriber.isOpen) subscriber.destroy();
        throw error;
      }
      return {
        subscribe: (channel, listener) => subscriber.subscribe(channel, listener),
        unsubscribe: (channel, listener) => subscriber.unsubscribe(channel, listener),
        get isOpen() {
          return subscriber.isOpen;
        },
        close: () => closeClient(subscriber, label, timeoutMs),
      };
    },
  };
}

/** Closes a connection gracefully within the budget, else drops it: a paused server never answers the close. */
export async function closeClient(client: RedisClient, label: string, timeoutMs: number): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) return client.destroy();
  await withinBudget(`closing ${label}`, timeoutMs, () => client.close()).catch(() => {
    if (client.isOpen) client.destroy();
  });
}

/** `<seq>:<bytes>:<event length>:<event><data>`: the script reads the numbers in front, never the rest. */
function encodeFrame(frame: LogFrame): string {
  return `${frame.seq}:${frameBytes(frame)}:${frame.event.length}:${frame.event}${frame.data}`;
}

/** A stored frame back into a LogFrame. */
function decodeFrame(runId: string, raw: string): LogFrame {
  const seqEnd = raw.indexOf(':');
  const bytesEnd = raw.indexOf(':', seqEnd + 1);
  const lengthEnd = raw.indexOf(':', bytesEnd + 1);
  const eventEnd = lengthEnd + 1 + Number(raw.slice(bytesEnd + 1, lengthEnd));
  return { runId, seq: Number(raw.slice(0, seqEnd)), event: raw.slice(lengthEnd + 1, eventEnd), data: raw.slice(eventEnd) };
}
