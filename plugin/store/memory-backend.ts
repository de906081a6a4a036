/**
 * In-process backend: Keyv's default Map store. The swap is atomic because it is synchronous: nothing
 * awaits between reading the current row and writing the next one, so no other callback can interleave.
 * Good for one process and for tests; it shares nothing across processes or restarts.
 */
import Keyv from 'keyv';
import { matches, type Backend, type SwapRequest } from './backend.js';
import { MemoryLog } from './memory-log.js';
import { StoreUnavailableError } from './types.js';

export interface MemoryBackendOptions {
  /** Rows to use; pass the same Map to two stores to let them share a "backend". @default a new Map */
  map?: Map<string, string>;
  /** How often physically expired rows are dropped. @default 60000 */
  sweepEveryMs?: number;
}

export function createMemoryBackend({ map = new Map(), sweepEveryMs = 60_000 }: MemoryBackendOptions = {}): Backend {
  // Keyv owns the Map so a plain Keyv reader sees the same envelope format; we only touch it synchronously.
  const keyv = new Keyv<unknown>({ store: map, namespace: undefined, useKeyPrefix: false, throwOnErrors: true });
  const rows = keyv.store as Map<string, string>;

  const log = MemoryLog.of(map);
  const sweep = setInterval(() => {
    log.collect();
    const now = Date.now();
    for (const [key, raw] of rows) {
      const expires = expiresOf(raw);
      if (expires !== undefined && now > expires) rows.delete(key);
    }
  }, sweepEveryMs);
  sweep.unref();

  return {
    kind: 'memory',
    label: 'memory',
    settlesInline: true,
    log,
    read: async (key) => rows.get(key),
    swap: async ({ key, expect, next, deadline }: SwapRequest) => {
      if (Date.now() > deadline) throw new StoreUnavailableError('memory store write came after its deadline; nothing was written');
      if (!matches(expect, rows.get(key))) return false;
      if (next === null) rows.delete(key);
      else rows.set(key, next);
      return true;
    },
    readMany: async (keys) => keys.map((key) => rows.get(key)),
    scan: async (prefix, cursor, limit) => {
      // Sorted so a cursor (the last key given) resumes where the page ended.
      const keys = [...rows.keys()].filter((k) => k.startsWith(prefix) && (cursor === undefined || k > cursor)).sort();
      const entries = keys.slice(0, limit).flatMap((k): Array<[string, string]> => (rows.has(k) ? [[k, rows.get(k)!]] : []));
      return keys.length > limit ? { entries, cursor: keys[limit - 1]! } : { entries };
    },
    close: async () => clearInterval(sweep),
  };
}

function expiresOf(raw: string): number | undefined {
  try {
    const expires = (JSON.parse(raw) as { expires?: unknown }).expires;
    return typeof expires === 'number' ? expires : undefined;
  } catch {
    return undefined;
  }
}
