/** The standalone file loads the Markdown renderer from the ES build's chunk (widget/build/shared-chunks.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHARED_CHUNKS } from '../../../widget/build/shared-chunks.js';
import { staticLazyImports } from '../../../widget/build/static-lazy-imports.js';

const plugin = staticLazyImports();
const resolve = plugin.resolveId as (source: string) => unknown;
const transform = plugin.transform as (code: string, id: string) => { code: string } | null;

test('the standalone build keeps a shared module’s import() lazy, pointed at its chunk, and makes the others static', () => {
  assert.deepEqual(SHARED_CHUNKS, { './markdown.js': './ask-user-kit.markdown.js' });
  const out = transform(
    'const m = import("./markdown.js"); const c = (await import("./client-calls.js")).getPending;',
    '/repo/widget/a.ts',
  );
  assert.equal(
    out?.code,
    'import { getPending as __static0 } from "./client-calls.js";const m = import("./ask-user-kit.markdown.js"); const c = __static0;',
  );
  assert.equal(
    transform('const m = (await import("./markdown.js")).renderMarkdown;', '/repo/widget/a.ts')?.code,
    'const m = (await import("./ask-user-kit.markdown.js")).renderMarkdown;',
  );
});

test('the chunk file is left external; anything else is Vite’s to resolve', () => {
  assert.deepEqual(resolve('./ask-user-kit.markdown.js'), { id: './ask-user-kit.markdown.js', external: true });
  assert.equal(resolve('./client-calls.js'), null);
  assert.equal(resolve('./markdown.js'), null);
});
