/** A lazy chunk that carries its own copies of what it imports (widget/build/chunk-copies.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createBuilder, type Rolldown } from 'vite';
import { COPY, SELF_CONTAINED, chunkCopies } from '../../../widget/build/chunk-copies.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

type Resolve = (source: string, importer: string | undefined, options: object) => Promise<unknown>;
const plugin = chunkCopies();
const resolveId = (plugin.resolveId as unknown as Resolve).bind({
  resolve: async (source: string, importer: string) => ({
    id: `${importer.replace(/[^/]*$/, '')}${source.replace('./', '').replace('.js', '.ts')}`,
  }),
});

test('imports of a self-contained module, and of its copies, resolve to copies; anything else is left alone', async () => {
  assert.deepEqual(SELF_CONTAINED, ['widget/submit-rules.ts']);
  assert.deepEqual(await resolveId('./answer-checks.js', '/repo/widget/submit-rules.ts', {}), {
    id: `/repo/widget/answer-checks.ts${COPY}`,
  });
  assert.deepEqual(await resolveId('./answer-fields.js', `/repo/widget/answer-checks.ts${COPY}`, {}), {
    id: `/repo/widget/answer-fields.ts${COPY}`,
  });
  assert.equal(await resolveId('./answer-fields.js', '/repo/widget/read-answer.ts', {}), null);
  assert.equal(await resolveId('lit', '/repo/widget/submit-rules.ts', {}), null);
});

test('in both builds, the submit-rules chunk imports nothing and the entries export only the public names', async () => {
  const inMemory = { build: { write: false } };
  const builder = await createBuilder({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: 'silent',
    environments: { module: inMemory, standalone: inMemory },
  });
  const chunksOf = (output: unknown) =>
    (Array.isArray(output) ? output : [output])
      .flatMap((o: Rolldown.RolldownOutput) => o.output)
      .filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
  const exports: string[][] = [];
  for (const name of ['module', 'standalone'] as const) {
    const chunks = chunksOf(await builder.build(builder.environments[name]!));
    const rules = chunks.find((c) => c.fileName.endsWith('submit-rules.js'));
    assert.ok(rules, `the ${name} build emits a submit-rules chunk`);
    assert.deepEqual(rules.imports, [], `the ${name} submit-rules chunk imports nothing`);
    assert.ok(
      Object.keys(rules.modules).some((id) => id.endsWith(`answer-rules.ts${COPY}`)),
      'it holds the server’s answer rules',
    );
    exports.push(chunks.find((c) => c.isEntry)!.exports.sort());
  }
  assert.deepEqual(exports[1], exports[0], 'the standalone exports what the ES module does');
  assert.ok(
    exports[0]!.every((n) => /^[A-Za-z]{4,}$/.test(n)),
    `public names only: ${exports[0]!.join(', ')}`,
  );
});
