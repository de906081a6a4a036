/**
 * What the generic store (keyed-store.ts) needs from a backend: raw reads through the Keyv adapter, and
 * one atomic compare-and-swap done with the backend's own means, because Keyv has none.
 *
 * Values are stored in Keyv's own envelope, `JSON.stringify({ value, expires })`, so a plain Keyv on the
 * same table or Redis still reads them; the raw string is what the swap compares.
 */
import type { LogBackend } from './event-log.js';
import { StoreError } from './store-errors.js';

/**
 * What a swap expects to find: anything, no row at all, exactly this raw string, or a versioned state row
 * (see `stateHead`) carrying this version and still live at `liveAt` (its `purgeAt`, if any, is later).
 * The version form lets a compare-and-set go out without reading the row first.
 */
export type Expectation =
  { kind: 'any' } | { kind: 'absent' } | { kind: 'raw'; raw: string } | { kind: 'version'; version: string; liveAt: number };

export interface SwapRequest {
  key: string;
  expect: Expectation;
  /** New raw value; `null` deletes the row. */
  next: string | null;
  /** Physical time to live; undefined keeps the row until deleted. */
  ttlMs?: number;
  /**
   * Epoch ms on this process's clock. A backend must refuse (throw StoreUnavailableError, change nothing)
   * if it would apply the write later than this, so a caller that gave up can safely retry.
   */
  deadline: number;
}

export interface Backend {
  readonly kind: 'memory' | 'sqlite' | 'redis' | 'redis-cluster' | 'postgres';
  /** Human description for error messages, without credentials. */
  readonly label: string;
  /**
   * The backend shards by hash slot and runs an atomic script on keys of one slot only: the store then
   * ends every key with its session's `{slot tag}` (physical-keys.ts). Other backends keep plain keys.
   */
  readonly slotted?: true;
  /**
   * Every operation settles in the caller's own microtasks (no I/O, no timers), so it cannot hang: the
   * store skips its per-operation timeout. Only the built-in memory backend says so; a wrapper must not.
   */
  readonly settlesInline?: true;
  /** The stored raw string, or undefined when there is no row. Backend errors propagate. */
  read(key: string): Promise<string | undefined>;
  /** Atomic: if the row matches `expect`, write `next`; true when written. */
  swap(request: SwapRequest): Promise<boolean>;
  /** The raw rows of `keys`, in order (undefined where there is none): one round trip for a sweep's page. */
  readMany(keys: readonly string[]): Promise<Array<string | undefined>>;
  /**
   * Up to about `limit` rows whose key starts with `prefix`, and a cursor for the next page (none when
   * done). Keys present for the whole scan are returned at least once; keys added or removed meanwhile may
   * or may not be. For background sweeps, never for anything that must be exact.
   */
  scan(prefix: string, cursor: string | undefined, limit: number): Promise<ScanPage>;
  /**
   * The backend's event log (contract §11, event-log.ts). A backend without one gets an in-process log:
   * replay and follow then work within one process only.
   */
  readonly log?: LogBackend;
  /** Also closes `log`. */
  close(): Promise<void>;
}

export interface ScanPage {
  /** Key and raw row. */
  entries: Array<[string, string]>;
  cursor?: string;
}

export interface Envelope<T> {
  value: T;
  /** Epoch ms (real clock) after which Keyv treats the row as gone. */
  expires?: number;
}

export function encodeEnvelope<T>(value: T, ttlMs: number | undefined): string {
  const envelope: Envelope<T> = ttlMs === undefined ? { value } : { value, expires: Date.now() + ttlMs };
  return JSON.stringify(envelope);
}

/** The value of a raw row, or undefined when the row is physically expired but not yet collected. */
export function decodeEnvelope<T>(raw: string, key: string): T | undefined {
  let envelope: Envelope<T>;
  try {
    envelope = JSON.parse(raw) as Envelope<T>;
  } catch (error) {
    throw new StoreError('store_corrupt', `value under ${JSON.stringify(key)} is not JSON; is another app writing to this namespace?`, {
      cause: error,
    });
  }
  if (envelope === null || typeof envelope !== 'object' || !('value' in envelope)) {
    throw new StoreError('store_corrupt', `value under ${JSON.stringify(key)} is not a Keyv envelope { value, expires }`);
  }
  if (typeof envelope.expires === 'number' && Date.now() > envelope.expires) return undefined;
  return envelope.value;
}

/**
 * A versioned state row is written as `{"value":{"version":"…","purgeAt":…,"value":…},"expires":…}`, in
 * that order, so a backend can check its version and life from the head of the string without parsing
 * the whole value. A row in any other shape simply does not match, and the store falls back to a read.
 */
export const STATE_HEAD = '{"value":{"version":"';
const HEAD = /^\{"value":\{"version":"([^"]*)"(?:,"purgeAt":(\d+))?/;

/** The version and logical end of life a state row carries in its head, if it has that shape. */
export function stateHead(raw: string): { version: string; purgeAt?: number } | undefined {
  const m = HEAD.exec(raw);
  if (!m) return undefined;
  return m[2] === undefined ? { version: m[1]! } : { version: m[1]!, purgeAt: Number(m[2]) };
}

/** True when `expect` holds for the row currently stored as `current`. */
export function matches(expect: Expectation, current: string | undefined): boolean {
  if (expect.kind === 'any') return true;
  if (expect.kind === 'absent') return current === undefined;
  if (expect.kind === 'raw') return current === expect.raw;
  const head = current === undefined ? undefined : stateHead(current);
  return head !== undefined && head.version === expect.version && (head.purgeAt === undefined || head.purgeAt > expect.liveAt);
}
