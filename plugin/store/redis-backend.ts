/**
 * Redis backend: @keyv/redis for reads, over a node-redis client we configure ourselves so it never waits
 * on a dead server (no offline queue, bounded connect, capped reconnect backoff). The swap is one Lua
 * script — Redis runs scripts atomically — sent through the same client's EVAL.
 *
 * The script also refuses to write past a deadline read from the server's own clock (TIME), translated
 * from ours by an offset measured on each (re)connect (accurate to half a round trip, far inside the
 * ~250 ms margin the store leaves). A command stuck behind a paused server therefore changes nothing when
 * it finally runs, and the caller that got "store unavailable" may retry safely.
 */
import KeyvRedis, { createClient } from '@keyv/redis';
import type { Backend, SwapRequest } from './backend.js';
import { closeClient, LuaScript, RedisLog } from './redis-log.js';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

export interface RedisBackendOptions {
  /** The store's per-operation budget; connect attempts use it too. */
  timeoutMs: number;
}

// KEYS[1]; ARGV: mode (any|absent|raw|version), expected raw or version, next raw, ttl ms (0 = none),
// deadline on the server clock in ms (0 = none), delete (1|0), the caller's logical now (version mode).
// Returns 1 written, 0 expectation failed, -1 too late. The version is read from the row's head
// (backend.ts, stateHead), so a large value is never decoded here.
export const SWAP = new LuaScript(`
if ARGV[5] ~= '0' then
  local t = redis.call('TIME')
  local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if nowMs > tonumber(ARGV[5]) then return -1 end
end
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'absent' then
  if current then return 0 end
elseif ARGV[1] == 'raw' then
  if current ~= ARGV[2] then return 0 end
elseif ARGV[1] == 'version' then
  if not current then return 0 end
  local version = string.match(current, '^{"value":{"version":"([^"]*)"')
  if version ~= ARGV[2] then return 0 end
  local purgeAt = string.match(current, '^{"value":{"version":"[^"]*","purgeAt":(%d+)')
  if purgeAt and tonumber(purgeAt) <= tonumber(ARGV[7]) then return 0 end
end
if ARGV[6] == '1' then
  redis.call('DEL', KEYS[1])
elseif ARGV[4] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
end
return 1
`);

export async function openRedisBackend(target: { url: string; label: string }, { timeoutMs }: RedisBackendOptions): Promise<Backend> {
  let everReady = false;
  const client = createClient({
    url: target.url,
    // While disconnected, fail commands at once instead of queueing them past the budget.
    disableOfflineQueue: true,
    // A server that hangs (not closed, just silent) leaves commands waiting; cap how many pile up.
    commandsQueueMaxLength: 10_000,
    socket: {
      connectTimeout: timeoutMs,
      // Before the first connection a refusal is final, so openStore fails at once with the reason;
      // after it, keep trying to come back (commands fail fast meanwhile, see above).
      reconnectStrategy: (retries: number, cause: Error) => (everReady ? Math.min(50 * 2 ** retries, 1000) : cause),
    },
  });
  // node-redis emits every failed reconnect; the operations report them, the process must not crash.
  client.on('error', () => undefined);
  const adapter = new KeyvRedis(client, { throwOnConnectError: true, throwOnErrors: true });
  // Failures reach callers through rejected operations; the adapter's event only must not go unheard.
  adapter.on('error', () => undefined);

  /** Server clock minus ours, in ms; undefined until measured (then writes go without a deadline). */
  let offsetMs: number | undefined;
  const calibrate = async () => {
    offsetMs = await clockOffsetOf(client);
  };
  client.on('ready', () => {
    everReady = true;
    calibrate().catch(() => undefined);
  });

  try {
    await withinBudget(`connecting to ${target.label}`, timeoutMs, async () => {
      await client.connect();
      await calibrate();
    });
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw error;
  }

  async function swap(request: SwapRequest): Promise<boolean> {
    const reply = await SWAP.run(client, { keys: [request.key], arguments: swapArguments(request, offsetMs) });
    if (reply === -1) throw new StoreUnavailableError(`${target.label} ran the write after its deadline; nothing was written`);
    return reply === 1;
  }

  const log = new RedisLog(client, { label: target.label, timeoutMs });

  return {
    kind: 'redis',
    label: target.label,
    log,
    read: async (key) => {
      const raw = await adapter.get<string>(key);
      return typeof raw === 'string' ? raw : undefined;
    },
    swap,
    readMany: async (keys) => (keys.length === 0 ? [] : (await client.mGet([...keys])).map((raw) => raw ?? undefined)),
    scan: async (prefix, cursor, limit) => {
      const reply = await client.scan(cursor ?? '0', { MATCH: `${globEscape(prefix)}*`, COUNT: limit });
      const raws = reply.keys.length === 0 ? [] : await client.mGet(reply.keys);
      // A key removed between the two commands has no row left: it is simply not listed.
      const entries = reply.keys.flatMap((k, i): Array<[string, string]> => (typeof raws[i] === 'string' ? [[k, raws[i]]] : []));
      return reply.cursor === '0' ? { entries } : { entries, cursor: reply.cursor };
    },
    close: async () => {
      await log.close();
      // A graceful close waits for pending replies, which a paused server never sends.
      await closeClient(client, target.label, timeoutMs);
    },
  };
}

/** The SWAP script's arguments for a request; `offsetMs` (server clock minus ours) places the deadline. */
export function swapArguments({ expect, next, ttlMs, deadline }: SwapRequest, offsetMs: number | undefined): string[] {
  return [
    expect.kind,
    expect.kind === 'raw' ? expect.raw : expect.kind === 'version' ? expect.version : '',
    next ?? '',
    String(ttlMs === undefined ? 0 : Math.max(1, Math.ceil(ttlMs))),
    String(offsetMs === undefined ? 0 : Math.floor(deadline + offsetMs)),
    next === null ? '1' : '0',
    expect.kind === 'version' ? String(expect.liveAt) : '0',
  ];
}

/** A prefix taken literally in a SCAN pattern. */
export const globEscape = (prefix: string): string => prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/**
 * The server's clock minus ours, in ms, by `TIME`. The estimate is off by at most half the round trip it
 * was measured with, so the fastest of a few is kept.
 */
export async function clockOffsetOf(client: { sendCommand(args: string[]): Promise<unknown> }): Promise<number> {
  let best = { rtt: Infinity, offset: 0 };
  for (let sample = 0; sample < 3; sample++) {
    const before = Date.now();
    const reply = (await client.sendCommand(['TIME'])) as [string, string];
    const after = Date.now();
    const offset = Number(reply[0]) * 1000 + Number(reply[1]) / 1000 - (before + after) / 2;
    if (after - before < best.rtt) best = { rtt: after - before, offset };
  }
  return best.offset;
}
