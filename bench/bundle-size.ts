/**
 * Bundle sizes of the widget (not a test): builds both bundles in memory with the project's vite config,
 * plus a bundle of `lit` alone built the same way, and prints raw, gzip and brotli sizes, the share of lit
 * in each, and the size goals. Run: `node --import tsx bench/bundle-size.ts` (nothing is written to dist/).
 */
import { build, createBuilder, type Rolldown } from 'vite';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { OXC_OPTIONS, widgetBuild } from '../vite.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

interface Row {
  name: string;
  code: string;
  /** gzip goal in bytes, if any. */
  goal?: number;
}

const onlyChunk = (output: unknown): Rolldown.OutputChunk => {
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`expected one chunk per bundle, got ${chunks.length}: ${chunks.map((c) => c.fileName).join(', ')}`);
  return chunks[0]!;
};

async function widgetBundles(): Promise<{ module: Rolldown.OutputChunk; standalone: Rolldown.OutputChunk }> {
  const inMemory = { build: { write: false } };
  const builder = await createBuilder({
    root,
    configFile,
    logLevel: 'silent',
    environments: { module: inMemory, standalone: inMemory },
  });
  const module = onlyChunk(await builder.build(builder.environments.module!));
  const standalone = onlyChunk(await builder.build(builder.environments.standalone!));
  return { module, standalone };
}

async function litOnly(): Promise<string> {
  const entry = fileURLToPath(new URL('./lit-only.ts', import.meta.url));
  const output = await build({
    root,
    configFile: false,
    logLevel: 'silent',
    publicDir: false,
    oxc: OXC_OPTIONS,
    build: { ...widgetBuild('lit-only.js', undefined, entry), write: false },
  });
  return onlyChunk(output).code;
}

const gzip = (code: string) => gzipSync(code, { level: 9 }).length;
const brotli = (code: string) => brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

const [bundles, lit] = await Promise.all([widgetBundles(), litOnly()]);
const rows: Row[] = [
  { name: 'ask-user-kit.js (lit external)', code: bundles.module.code, goal: 6 * 1024 },
  { name: 'ask-user-kit.standalone.js', code: bundles.standalone.code, goal: 12 * 1024 },
  { name: 'lit alone (same build)', code: lit },
];
const litGzip = gzip(lit);
const table = rows.map(({ name, code, goal }) => {
  const g = gzip(code);
  return {
    bundle: name,
    raw: kb(code.length),
    gzip: kb(g),
    brotli: kb(brotli(code)),
    'gzip ÷ lit': `${(g / litGzip).toFixed(2)}×`,
    goal: goal === undefined ? '' : `${g <= goal ? 'within' : 'over'} ${kb(goal)}`,
  };
});
console.table(table);

// Where the ES module's bytes come from: each source module as rendered into the bundle (tree-shaken,
// before minification), and that code gzipped alone. Shares, not exact parts of the totals above.
const modules = Object.entries(bundles.module.modules)
  .map(([id, m]) => ({ module: id.replace(root, '').replace(/^\0/, ''), rendered: m.renderedLength, code: m.code ?? '' }))
  .filter((m) => m.rendered > 0)
  .sort((a, b) => b.rendered - a.rendered)
  .map(({ module, rendered, code }) => ({ module, 'rendered, pre-minify': kb(rendered), 'its gzip alone': kb(gzip(code)) }));
console.table(modules);
