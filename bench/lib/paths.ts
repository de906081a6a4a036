/**
 * Where the repository is, whether a benchmark runs from source (tsx) or compiled by run.sh into
 * bench/results/build/ (plain node, so the measured plugin code is what `tsc` emits, with no loader in
 * the way).
 */
import { fileURLToPath } from 'node:url';

const BUILD_SUFFIX = 'bench/results/build/';
const up = fileURLToPath(new URL('../../', import.meta.url));

export const REPO_ROOT = up.endsWith(BUILD_SUFFIX) ? up.slice(0, -BUILD_SUFFIX.length) : up;
/** True when running the tsc output rather than the TypeScript sources. */
export const COMPILED = up.endsWith(BUILD_SUFFIX);
/** Node flags a child needs to run a sibling module of this run's kind. */
export const CHILD_EXEC_ARGV: string[] = COMPILED ? [] : ['--import', 'tsx'];
/** A sibling benchmark module's path, with this run's extension. */
export const sibling = (importMetaUrl: string, name: string): string =>
  fileURLToPath(new URL(`./${name}${COMPILED ? '.js' : '.ts'}`, importMetaUrl));
