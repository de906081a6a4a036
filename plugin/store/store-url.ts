/**
 * The store URL forms `openStore` accepts (docs/protocol.md §7 `ASK_USER_STORE`), parsed once so each backend
 * gets clean parts and an unknown form fails with one helpful message.
 */
import { StoreError } from './store-errors.js';

export type StoreTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; file: string }
  | { kind: 'redis'; url: string; label: string }
  | { kind: 'postgres'; url: string; label: string };

export const STORE_URL_FORMS =
  'memory, sqlite://<file path>, redis://host:port[/db] or rediss://host:port[/db], postgres://user:password@host:port/db (or postgresql://)';

export function parseStoreUrl(url: string): StoreTarget {
  const trimmed = url.trim();
  if (trimmed === 'memory' || trimmed === 'memory://') return { kind: 'memory' };
  if (trimmed.startsWith('sqlite://')) {
    const file = trimmed.slice('sqlite://'.length);
    if (file.length === 0) throw invalid(url, 'the sqlite form needs a file path after sqlite://');
    return { kind: 'sqlite', file };
  }
  if (/^rediss?:\/\//.test(trimmed)) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch (error) {
      throw invalid(url, 'it is not a valid URL', error);
    }
    if (parsed.hostname === '') throw invalid(url, 'the redis form needs a host');
    if (!/^\/?(\d+)?$/.test(parsed.pathname)) throw invalid(url, 'the path of a redis URL must be a database number');
    // Keep credentials out of anything we print.
    const label = `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    return { kind: 'redis', url: trimmed, label };
  }
  if (/^postgres(ql)?:\/\//.test(trimmed)) {
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch (error) {
      throw invalid(url, 'it is not a valid URL', error);
    }
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) throw invalid(url, 'the postgres form needs a host');
    // Neither the user's password nor a query (which may carry one, or sslkey paths) goes into the label.
    const label = `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    return { kind: 'postgres', url: trimmed, label };
  }
  throw invalid(url, 'the scheme is not one of them');
}

function invalid(url: string, why: string, cause?: unknown): StoreError {
  // Credentials sit before '@', and a postgres query may hold a password too.
  const shown = url.replace(/\/\/[^@/]*@/, '//***@').replace(/\?.*$/s, '?***');
  return new StoreError('invalid_store_url', `store URL ${JSON.stringify(shown)} is not accepted (${why}); use ${STORE_URL_FORMS}`, {
    cause,
  });
}
