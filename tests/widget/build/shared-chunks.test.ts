/** The standalone file loads the Markdown renderer from the ES build's chunk (widget/build/shared-chunks.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHARED_CHUNKS, sharedChunkImports } from '../../../widget/build/shared-chunks.js';

const plugin = sharedChunkImports();
const resolve = plugin.resolveId as (source: string, importer: string | undefined) => unknown;
const forEnvironment = plugin.applyToEnvironment as (environment: { name: string }) => boolean;

test('a widget module’s import of a shared module points at the ES build’s chunk, left external', () => {
  assert.deepEqual(SHARED_CHUNKS, { './markdown.js': './ask-user-kit.markdown.js' });
  assert.deepEqual(resolve('./markdown.js', '/repo/widget/rich-text.ts'), { id: './ask-user-kit.markdown.js', external: true });
});

test('other lazy modules, and imports from outside the widget, are Vite’s to resolve (and to split)', () => {
  assert.equal(resolve('./client-calls.js', '/repo/widget/client.ts'), null);
  assert.equal(resolve('./sse-stream.js', '/repo/widget/sse-reader.ts'), null);
  assert.equal(resolve('./markdown.js', '/repo/node_modules/x/index.js'), null);
  assert.equal(resolve('./markdown.js', undefined), null);
});

test('only the standalone build redirects: the ES build emits the chunk itself', () => {
  assert.equal(forEnvironment({ name: 'standalone' }), true);
  assert.equal(forEnvironment({ name: 'module' }), false);
});
