/**
 * A lock file for a throwaway consumer project, cut from this repository's own package-lock.json, so the
 * consumer can install the packed tarball with `npm ci --offline`: npm then needs only the tarballs the
 * repository's `npm ci` already put into npm's cache, and no registry metadata (which `npm ci` never
 * fetches, so an offline `npm install` that resolves version ranges would fail on a clean machine).
 *
 * The consumer's tree is the part of the repository's tree that the package's dependencies (and the
 * consumer's own, all named by the package too) reach, at the same locations, so every package resolves
 * its dependencies to the same copies it does here. `npm ls --all` in the consumer then checks that the
 * versions satisfy the ranges the tarball's package.json declares.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

export interface PackageJson {
  name: string;
  version: string;
  license?: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
  files?: string[];
  [field: string]: unknown;
}

/** Where `name` resolves from the package at `from` ('' is the root), walking up node_modules as Node does. */
function resolveFrom(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    base = base.slice(0, base.lastIndexOf('node_modules/')).replace(/\/$/, '');
  }
}

/** Names a package needs installed: its dependencies, optional ones, and its non-optional peers. */
function needs(entry: Pick<LockEntry, 'dependencies' | 'optionalDependencies' | 'peerDependencies' | 'peerDependenciesMeta'>): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

export interface ConsumerLockInput {
  /** The repository's package-lock.json. */
  repoLockPath: string;
  /** The consumer's package.json `name`. */
  consumerName: string;
  /** The consumer's dependencies besides the package itself (each must be named by the package). */
  consumerDependencies: Record<string, string>;
  /** The packed package's own package.json, as it is inside the tarball. */
  packed: PackageJson;
  /** The tarball, and how the consumer's package.json names it (`file:../x.tgz`). */
  tarballPath: string;
  tarballSpec: string;
}

export function consumerLock(input: ConsumerLockInput): Record<string, unknown> {
  const repo = JSON.parse(readFileSync(input.repoLockPath, 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
  if (repo.lockfileVersion < 2) throw new Error('package-lock.json must be lockfileVersion 2 or 3');
  const { packed } = input;
  const rootDependencies = { [packed.name]: input.tarballSpec, ...input.consumerDependencies };

  const packages: Record<string, LockEntry> = {
    '': { name: input.consumerName, dependencies: rootDependencies },
    [`node_modules/${packed.name}`]: {
      version: packed.version,
      resolved: input.tarballSpec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(input.tarballPath)).digest('base64')}`,
      ...(packed.license ? { license: packed.license } : {}),
      ...(packed.dependencies ? { dependencies: packed.dependencies } : {}),
      ...(packed.peerDependencies ? { peerDependencies: packed.peerDependencies } : {}),
      ...(packed.peerDependenciesMeta ? { peerDependenciesMeta: packed.peerDependenciesMeta } : {}),
      ...(packed.engines ? { engines: packed.engines } : {}),
    },
  };

  const missing: string[] = [];
  const queue: Array<{ from: string; name: string; optional: boolean }> = [];
  const want = (from: string, entry: Parameters<typeof needs>[0]) => {
    for (const name of needs(entry)) queue.push({ from, name, optional: name in (entry.optionalDependencies ?? {}) });
  };
  // The package's dependencies resolve from the consumer's root, as the repository's root resolves its own.
  want('', { ...packed, dependencies: { ...packed.dependencies, ...input.consumerDependencies } });
  while (queue.length) {
    const { from, name, optional } = queue.shift()!;
    if (name === packed.name) continue;
    const at = resolveFrom(repo.packages, from, name);
    if (!at) {
      if (!optional) missing.push(`${name} (needed by ${from || 'the consumer'})`);
      continue;
    }
    if (packages[at]) continue;
    const entry = repo.packages[at]!;
    if (entry.link) throw new Error(`${at} is a link in package-lock.json; the consumer cannot install it`);
    // Dev/peer flags describe the repository's graph, not the consumer's.
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...copy } = entry;
    packages[at] = copy;
    want(at, entry);
  }
  if (missing.length) throw new Error(`not in package-lock.json: ${missing.join(', ')}`);
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  return { name: input.consumerName, lockfileVersion: 3, requires: true, packages: sorted };
}
