/**
 * A store backend that counts what goes through it, by method and by the kind of key (`state:run`,
 * `interaction:…`), so a test can hold an operation to its number of round trips.
 */
import type { Backend } from '../../plugin/store/backend.js';

/** `ns:kind:rest` → `kind`, with the state's own kind: `state:run`, `state:paused`, `interaction`. */
const kindOf = (key: string) => {
  const [, kind = '', sub = ''] = key.split(':');
  return kind === 'state' ? `state:${sub}` : kind;
};

export function countingBackend(backend: Backend) {
  const calls = new Map<string, number>();
  const count = (what: string) => calls.set(what, (calls.get(what) ?? 0) + 1);
  const wrapped: Backend = {
    kind: backend.kind,
    label: backend.label,
    read: (key) => (count(`read ${kindOf(key)}`), backend.read(key)),
    readMany: (keys) => (count('readMany'), backend.readMany(keys)),
    swap: (request) => (count(`swap ${kindOf(request.key)}`), backend.swap(request)),
    scan: (prefix, cursor, limit) => (count('scan'), backend.scan(prefix, cursor, limit)),
    close: () => backend.close(),
  };
  /** What went through since the last call, and its total; then starts again from zero. */
  const take = () => {
    const seen = Object.fromEntries(calls);
    const total = [...calls.values()].reduce((a, b) => a + b, 0);
    const by = (method: string) => [...calls].filter(([k]) => k.startsWith(method)).reduce((a, [, v]) => a + v, 0);
    const counts = { read: by('read '), swap: by('swap'), scan: by('scan'), readMany: by('readMany') };
    calls.clear();
    return { total, seen, counts };
  };
  return { wrapped, take };
}
