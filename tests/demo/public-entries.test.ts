/**
 * The demo is a consumer like any host: its server and page import the package by its public entries
 * (`ask-user-kit/...`), never a file inside plugin/ or widget/, so whatever the demo does, a host can do.
 * Those entries resolve to the sources through tsconfig.json's `paths` (tsx, tsc and the page's Vite
 * build read them), which must name exactly package.json's exports, each at the source of its build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, any>;

test("tsconfig's paths name exactly package.json's exports, each at the source its build emits", () => {
  const exportsMap = json('package.json').exports as Record<string, string | { types?: string; default: string }>;
  const paths = json('tsconfig.json').compilerOptions.paths as Record<string, [string]>;
  const entries = Object.keys(exportsMap)
    .filter((entry) => entry !== './package.json')
    .map((entry) => `ask-user-kit${entry.slice(1)}`)
    .sort();
  assert.deepEqual(Object.keys(paths).sort(), entries);
  for (const [entry, [source]] of Object.entries(paths)) {
    const target = exportsMap[`.${entry.slice('ask-user-kit'.length)}`]!;
    const types = typeof target === 'string' ? target : target.types!;
    // dist/<source path>.d.ts is what `tsc -p tsconfig.build.json` emits for <source path>.ts.
    assert.equal(types.replace(/^\.\/dist\//, './').replace(/\.d\.ts$/, '.ts'), source, entry);
  }
});

/** Every .ts file under `dir`, as paths relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

test('the demo imports the package only through its public entries', () => {
  // The screenshot tool is a developer's script around the demo (it drives Chromium through the tests'
  // helpers), not part of what runs for a user.
  const files = sources('demo').filter((f) => !f.startsWith('demo/screenshots/'));
  assert.ok(files.length > 20, 'the demo has its sources');
  const inside: string[] = [];
  for (const file of files) {
    const code = readFileSync(join(root, file), 'utf8');
    for (const m of code.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(root, join(root, file, '..', spec));
      if (/^(plugin|widget)\//.test(target)) inside.push(`${file}: ${spec}`);
    }
  }
  assert.deepEqual(inside, []);
});
