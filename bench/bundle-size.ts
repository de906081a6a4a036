/**
 * Bundle sizes of the widget (not a test): builds both bundles in memory with the project's vite config,
 * plus a bundle of `lit` alone built the same way, and prints raw (UTF-16 code units, as `String.length`
 * counts), gzip -9 and brotli -11 sizes, the share of lit, and the size goals. Both bundles leave lazily
 * loaded code in sibling chunks, listed on their own rows. The goal is on what a plain card (one
 * single-choice question, no rich text) downloads before it can be answered: the standalone entry and every
 * chunk it imports statically (tests/widget/bundle-*.test.ts check in Chromium that such a card, answered
 * through onSubmit, loads no other file). One more row adds the chunk a card loads when it sends the answer
 * itself. Run: `node --import tsx bench/bundle-size.ts`
 * (nothing is written to dist/). The code measured is byte for byte what `vite build` writes (same config,
 * same plugins); gzip -9 here is Node's zlib, which packs it about 1% larger than the gzip tool does, so
 * `gzip -9` of a written file reads a little smaller than the figures printed here.
 */
import { build, createBuilder, minifySync, type Rolldown } from 'vite';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { OXC_OPTIONS, widgetBuild } from '../widget/build/bundles.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

const chunksOf = (output: unknown): Rolldown.OutputChunk[] => {
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  return outputs.flatMap((o) => o.output).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
};

const entryOf = (chunks: Rolldown.OutputChunk[]): Rolldown.OutputChunk => {
  const entries = chunks.filter((c) => c.isEntry);
  if (entries.length !== 1) throw new Error(`expected one entry chunk, got ${entries.map((c) => c.fileName).join(', ')}`);
  return entries[0]!;
};

async function widgetBundles(): Promise<{ module: Rolldown.OutputChunk[]; standalone: Rolldown.OutputChunk[] }> {
  const inMemory = { build: { write: false } };
  const builder = await createBuilder({
    root,
    configFile,
    logLevel: 'silent',
    environments: { module: inMemory, standalone: inMemory },
  });
  const module = chunksOf(await builder.build(builder.environments.module!));
  const standalone = chunksOf(await builder.build(builder.environments.standalone!));
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
  return entryOf(chunksOf(output)).code;
}

const gzip = (code: string) => gzipSync(code, { level: 9 }).length;
const brotli = (code: string) => brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

/** What a plain card downloads before it can be answered, gzip -9: at or under this (26 KiB). */
export const PLAIN_CARD_GOAL = 26 * 1024;

/**
 * The widget modules whose chunk a plain card loads after the user answered, when it sends the answer by
 * itself (endpoint or provider): the client calls. The SSE parser is not among them: the card hands the
 * continued stream to the host unread.
 */
const SEND_MODULES = ['widget/client-calls.ts'];
const holds = (chunk: Rolldown.OutputChunk, modules: readonly string[]) =>
  Object.keys(chunk.modules).some((id) => modules.some((m) => id.endsWith(m)));

/** `entry` and every chunk it imports statically, directly or not: what the browser loads with it. */
function withStaticImports(chunks: Rolldown.OutputChunk[], entry: Rolldown.OutputChunk): Rolldown.OutputChunk[] {
  const byName = new Map(chunks.map((c) => [c.fileName, c]));
  const out = new Set([entry]);
  for (const chunk of out) for (const name of chunk.imports) if (byName.has(name)) out.add(byName.get(name)!);
  return [...out];
}

const [bundles, lit] = await Promise.all([widgetBundles(), litOnly()]);
const moduleEntry = entryOf(bundles.module);
const standaloneEntry = entryOf(bundles.standalone);
const files = (n: number) => (n === 1 ? '1 file' : `${n} files`);
const lazyOf = (chunks: Rolldown.OutputChunk[], entry: Rolldown.OutputChunk) =>
  chunks.filter((c) => c !== entry).map((c) => ({ name: `  ${c.fileName} (lazy)`, code: c.code }));
const plainCard = withStaticImports(bundles.standalone, standaloneEntry);
const sendChunks = bundles.standalone.filter((c) => !plainCard.includes(c) && holds(c, SEND_MODULES));
if (sendChunks.length !== SEND_MODULES.length) throw new Error('a module of SEND_MODULES is in no lazy chunk of its own; update the list');
const rows: Array<{ name: string; code: string | string[]; goal?: number }> = [
  { name: `${moduleEntry.fileName} (lit external)`, code: moduleEntry.code, goal: 6 * 1024 },
  ...lazyOf(bundles.module, moduleEntry),
  { name: standaloneEntry.fileName, code: standaloneEntry.code },
  // Its rich text loads the ES build's ask-user-kit.markdown.js (listed above), not a chunk of its own.
  ...lazyOf(bundles.standalone, standaloneEntry),
  // The goal: what a plain card needs to appear and be answered.
  { name: `  plain card before it can be answered: ${files(plainCard.length)}`, code: plainCard.map((c) => c.code), goal: PLAIN_CARD_GOAL },
  {
    name: `  plain card sending by itself, to its receipt: ${files(plainCard.length + sendChunks.length)}`,
    code: [...plainCard, ...sendChunks].map((c) => c.code),
  },
  { name: 'lit alone (same build)', code: lit },
];
const litGzip = gzip(lit);
/** A row of several files is downloaded (and compressed) file by file, so its sizes are sums. */
const sum = (code: string | string[], size: (code: string) => number) => [code].flat().reduce((total, c) => total + size(c), 0);
console.table(
  rows.map(({ name, code, goal }) => {
    const g = sum(code, gzip);
    return {
      bundle: name,
      raw: kb(sum(code, (c) => c.length)),
      gzip: kb(g),
      brotli: kb(sum(code, brotli)),
      'gzip ÷ lit': `${(g / litGzip).toFixed(2)}×`,
      goal: goal === undefined ? '' : `${g <= goal ? 'within' : 'over'} ${kb(goal)}`,
    };
  }),
);

// Where the bytes come from: each source module as rendered into its chunk (tree-shaken), then minified
// (names shortened, no dead-code removal: alone, every declaration looks unused) and gzipped alone.
// Shares, not exact parts of the totals above (gzip works across module borders).
const minifiedGzip = (code: string) => {
  if (!code.trim()) return 0;
  const { code: min } = minifySync('module.js', code, { module: true, compress: false, mangle: { toplevel: true } });
  return gzip(min);
};
for (const [label, chunks] of [
  ['ES module', bundles.module],
  ['standalone', bundles.standalone],
] as const) {
  const modules = chunks
    .flatMap((chunk) => Object.entries(chunk.modules).map(([id, m]) => ({ chunk: chunk.fileName, id, m })))
    .filter(({ m }) => m.renderedLength > 0)
    .map(({ chunk, id, m }) => ({
      module: id
        .replace(root, '')
        .replace(/^\0/, '')
        .replace(/^.*node_modules\//, ''),
      chunk,
      rendered: m.renderedLength,
      gzip: minifiedGzip(m.code ?? ''),
    }))
    .sort((a, b) => b.gzip - a.gzip);
  console.log(`\n${label}: per source module, minified and gzipped alone`);
  console.table(
    modules.map(({ module, chunk, rendered, gzip: g }) => ({
      module,
      chunk,
      'rendered, pre-minify': kb(rendered),
      'min+gzip alone': kb(g),
    })),
  );
}
