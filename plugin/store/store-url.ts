/**
 * The store URL forms `openStore` accepts (docs/protocol.md §7 `ASK_USER_STORE`), parsed once so each backend
 * gets clean parts and an unknown form fails with one helpful message.
 */
import { StoreError } from './store-errors.js';

export type StoreTarget =
  | { kind: 'memory' }
  | { kind: 'sqlite'; file: string }
  | { kind: 'redis'; url: string; label: string }
  | {
      kind: 'redis-cluster';
      rootNodes: Array<{ host: string; port: number }>;
      label: string;
      username?: string;
      password?: string;
    }
  | { kind: 'postgres'; url: string; label: string };

export const STORE_URL_FORMS =
  'memory, sqlite://<file path>, redis://host:port[/db] or rediss://host:port[/db], redis+cluster://host:port,host:port, postgres://user:password@host:port/db (or postgresql://)';

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
  if (trimmed.startsWith('redis+cluster://')) return parseClusterUrl(url, trimmed);
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

/** `redis+cluster://[user:password@]host:port,host:port,…`: the nodes the client learns the cluster's map from. */
function parseClusterUrl(url: string, trimmed: string): StoreTarget {
  const rest = trimmed.slice('redis+cluster://'.length).replace(/\/$/, '');
  const at = rest.lastIndexOf('@');
  const credentials = at < 0 ? undefined : rest.slice(0, at);
  const nodes = at < 0 ? rest : rest.slice(at + 1);
  if (nodes.length === 0) throw invalid(url, 'the redis+cluster form needs at least one host:port');
  const rootNodes = nodes.split(',').map((node) => {
    const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(node.trim());
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw invalid(url, `${JSON.stringify(node)} is not host:port`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  });
  const target: StoreTarget = { kind: 'redis-cluster', rootNodes, label: `redis+cluster://${nodes}` };
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? '' : credentials.slice(0, colon));
    if (user !== '') target.username = user;
    target.password = decodeURIComponent(colon < 0 ? credentials : credentials.slice(colon + 1));
  }
  return target;
}

function invalid(url: string, why: string, cause?: unknown): StoreError {
  // Credentials sit before '@', and a postgres query may hold a password too.
  const shown = url.replace(/\/\/[^@/]*@/, '//***@').replace(/\?.*$/s, '?***');
  return new StoreError('invalid_store_url', `store URL ${JSON.stringify(shown)} is not accepted (${why}); use ${STORE_URL_FORMS}`, {
    cause,
  });
}
