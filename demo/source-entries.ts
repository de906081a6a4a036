/**
 * The package's public entries (`ask-user-kit/widget`, …) resolved to their sources, for Vite builds of
 * pages that import them as a host's page does (the demo page; a test's React page). tsconfig.json's
 * `paths` is the one list of them (tests/demo/public-entries.test.ts checks it against package.json's
 * exports). Exact matches, so `…/widget` never takes `…/widget/standalone`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);

export const SOURCE_ENTRIES: Array<{ find: RegExp; replacement: string }> = Object.entries(
  (JSON.parse(readFileSync(new URL('tsconfig.json', root), 'utf8')) as { compilerOptions: { paths: Record<string, [string]> } })
    .compilerOptions.paths,
).map(([entry, [source]]) => ({
  find: new RegExp(`^${entry.replaceAll('/', '\\/')}$`),
  replacement: fileURLToPath(new URL(source, root)),
}));
