/**
 * Errors of the store other than "backend unreachable" (that one, StoreUnavailableError, lives in
 * types.ts because every caller maps it to 503). These mean a caller or configuration mistake, or data
 * the store cannot read; retrying will not help.
 */
import { StoreUnavailableError } from './types.js';

export type StoreErrorCode =
  /** `openStore` got a URL it does not understand. */
  | 'invalid_store_url'
  /** A StoreOptions value is out of range. */
  | 'invalid_store_options'
  /** `create` got a record that is not a fresh `pending` one. */
  | 'invalid_record'
  /** `create` for a requestId that already holds a different interaction. */
  | 'duplicate_request_id'
  /** `markToolResultWritten` on an interaction nobody has claimed yet. */
  | 'not_resolved'
  /** A stored value is not what this store writes (another app wrote under our namespace?). */
  | 'store_corrupt'
  /**
   * This runtime or server lacks what the backend needs: `sqlite://` runs on node:sqlite, built into Node.js
   * ≥ 22.13; `postgres://` needs PostgreSQL 13 or later, and a schema no newer than this kit knows.
   */
  | 'store_unsupported';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** Any failure from a backend call becomes StoreUnavailableError unless it is already one of ours. */
export function asStoreFailure(error: unknown, what: string): Error {
  if (error instanceof StoreUnavailableError || error instanceof StoreError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`${what} failed: ${detail}`, { cause: error });
}

/**
 * Runs one store operation within `timeoutMs`. The work keeps running after a timeout (a socket write
 * cannot be recalled), which is why every write also carries a deadline the backend enforces itself.
 */
export async function withinBudget<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const running = work().catch((error: unknown) => {
    throw asStoreFailure(error, what);
  });
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new StoreUnavailableError(`${what} did not finish within ${timeoutMs} ms; nothing is known to have changed, retry later`)),
      timeoutMs,
    );
  });
  // The loser of the race must not surface as an unhandled rejection.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
