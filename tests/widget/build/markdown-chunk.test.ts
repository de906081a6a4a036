/**
 * The Markdown renderer (§9.3) is built into its own chunk, which both bundles load lazily: micromark and
 * DOMPurify are in neither entry file. Builds both bundles in memory with the project's vite config.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createBuilder, type Rolldown } from 'vite';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const CHUNK = 'ask-user-kit.markdown.js';
/** Strings of micromark's and DOMPurify's code that the widget's own code never holds. */
const MARKERS = ['codeFenced', 'ALLOWED_TAGS'];

const chunksOf = (output: unknown) =>
  (Array.isArray(output) ? output : [output])
    .flatMap((o: Rolldown.RolldownOutput) => o.output)
    .filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');

test('micromark and DOMPurify are in the Markdown chunk, not in the standalone or the ES entry', async () => {
  const inMemory = { build: { write: false } };
  const builder = await createBuilder({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: 'silent',
    environments: { module: inMemory, standalone: inMemory },
  });
  const module = chunksOf(await builder.build(builder.environments.module!));
  const standalone = chunksOf(await builder.build(builder.environments.standalone!));

  assert.deepEqual(
    standalone.map((c) => c.fileName).sort(),
    [
      'ask-user-kit.standalone-approval-card.js',
      'ask-user-kit.standalone-client-calls.js',
      'ask-user-kit.standalone-sse-stream.js',
      'ask-user-kit.standalone.js',
    ],
    'the standalone build writes its entry and its own lazy chunks, but no Markdown chunk of its own',
  );
  const entry = module.find((c) => c.isEntry)!;
  const standaloneEntry = standalone.find((c) => c.isEntry)!;
  const chunk = module.find((c) => c.fileName === CHUNK);
  assert.ok(chunk, `the ES build emits ${CHUNK}`);
  for (const marker of MARKERS) {
    assert.ok(chunk.code.includes(marker), `the chunk holds ${marker}`);
    for (const c of standalone) assert.ok(!c.code.includes(marker), `${c.fileName} holds ${marker}`);
    assert.ok(!entry.code.includes(marker), `the ES entry holds ${marker}`);
  }
  assert.deepEqual(chunk.imports, [], 'the chunk stands alone, so the standalone file can load it');
  assert.ok(
    standaloneEntry.code.includes(`import(\`./${CHUNK}\`)`) || standaloneEntry.code.includes(`import("./${CHUNK}")`),
    'the standalone file imports it lazily',
  );
  assert.ok(entry.dynamicImports.includes(CHUNK), 'the ES entry imports it lazily');
});
