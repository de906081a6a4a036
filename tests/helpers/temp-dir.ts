/**
 * Throwaway directories for tests (SQLite files, redis-server working dirs), removed with everything in
 * them when the test is done.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** A path inside the directory. */
  file(name: string): string;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix = 'ask-user-kit-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rm(path, { recursive: true, force: true }),
  };
}
