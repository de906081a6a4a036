/**
 * The demo is a consumer like any host: its server and page import the package by its public entries
 * (`ask-user-kit/...`), never a file inside plugin/ or widget/, so whatever the demo does, a host can do.
 * Those entries resolve to the sources through tsconfig.json's `paths` (tsx, tsc and the page's Vite
 * build read them), which must name exactly package.json's exports, each at the source of its build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
