/**
 * `vite build` produces both browser bundles of the widget in one run, as two build environments:
 *   dist/widget/ask-user-kit.js             ES module, lit and @lit/context external (for bundlers)
 *   dist/widget/ask-user-kit.standalone.js  one self-contained module with lit inside (a WebView's <script type="module">)
 *
 * The elements declare their reactive properties in `static properties` and give defaults as class fields,
 * which `useDefineForClassFields: false` (tsconfig.json) turns into assignments in the constructor. Vite 8's
 * Oxc transform reads that from the tsconfig; the `oxc` block below states the same choice so the build does
 * not depend on which tsconfig Oxc happens to resolve. Native class fields would shadow Lit's reactive
 * accessors and the element would never re-render; tests/widget/bundle-*.test.ts checks the built files.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { defineConfig, minifySync, parseAst, type BuildEnvironmentOptions, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./widget/index.ts', import.meta.url));
const outDir = fileURLToPath(new URL('./dist/widget', import.meta.url));

/** lit and everything it is made of, plus @lit/context: one copy per page, owned by the host's bundler. */
export const LIT_EXTERNAL = /^(lit|lit-html|lit-element|@lit\/[^/]+)(\/.*)?$/;

/** Settings both bundles share, so `bench/bundle-size.ts` can build a lit-only baseline the same way. */
export function widgetBuild(fileName: string, external: RegExp | undefined, entryFile: string = entry): BuildEnvironmentOptions {
  // The ES module leaves lazily loaded code (the client's calls, the SSE parser) in sibling chunks that a
  // host's bundler splits as it likes; the standalone file is one <script type="module"> for a WebView, so
  // it carries them itself (see staticLazyImports below).
  const split = external !== undefined;
  return {
    outDir,
    // Never wipe dist/widget: `tsc -p tsconfig.build.json` writes the .d.ts files there, and a later
    // `vite build` alone (as before the browser tests) must not delete them. Every file name is fixed.
    emptyOutDir: false,
    // ES2021, as lit 3 itself ships: class static blocks (ES2022) would shut out iOS 15 WebViews for 0.05 KB
    // gzip (measured with bench/bundle-size.ts). The styles likewise avoid light-dark() (iOS 17.5).
    target: 'es2021',
    minify: 'oxc',
    sourcemap: false,
    copyPublicDir: false,
    reportCompressedSize: true,
    lib: { entry: entryFile, formats: ['es'], fileName: () => fileName },
    rolldownOptions: {
      ...(external ? { external: [external] } : {}),
      // Lets the bundler keep code the entry shares with a lazy chunk in the entry, which the chunk then
      // imports from it. The chunks use only names widget/index.ts exports, so the entry's exports stay
      // exactly the public ones (the package test compares them with the standalone file's); the default
      // ('strict') would move such code into extra shared chunks instead.
      ...(split ? { preserveEntrySignatures: 'allow-extension' as const } : {}),
      // Vite leaves whitespace in ES library builds; these files ship as they are, so print them compact too.
      output: {
        minify: { compress: true, mangle: true, codegen: true },
        ...(split ? { chunkFileNames: 'ask-user-kit.[name].js' } : { codeSplitting: false }),
      },
    },
  };
}

type Node = { type: string; start: number; end: number; [key: string]: unknown };

/** Every node below `node`, depth first (the ESTree of one small module: recursion is fine). */
function* walk(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const child of node) yield* walk(child);
  else if (node && typeof node === 'object' && typeof (node as Node).type === 'string') {
    yield node as Node;
    for (const value of Object.values(node)) if (value && typeof value === 'object') yield* walk(value);
  }
}

/** `code` with each `[start, end, text]` range replaced; ranges must not overlap. */
function applyEdits(code: string, edits: Array<[number, number, string]>): string {
  let out = code;
  for (const [start, end, text] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  return out;
}

/**
 * Whitespace of a lit `html` template part. A run holding a line break is indentation: next to a tag
 * boundary or an end of the template it goes, anywhere else (between attributes, between two
 * expressions) it becomes one space. Runs without a line break are written on purpose and stay.
 */
export function collapseHtml(raw: string, first: boolean, last: boolean): string {
  return raw.replace(/\s*\n\s*/g, (run, at: number) => {
    const before = at === 0 ? (first ? '>' : '') : raw[at - 1];
    const after = at + run.length === raw.length ? (last ? '<' : '') : raw[at + run.length];
    return before === '>' || after === '<' ? '' : ' ';
  });
}

/** A `css` template part without comments and layout whitespace; spaces that separate tokens stay. */
export function collapseCss(raw: string): string {
  return raw
    .replace(/\/\*[^]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/ ?([{};,>]) ?/g, '$1')
    .replace(/: /g, ':')
    .replace(/;}/g, '}')
    .trim();
}

/**
 * The minifier leaves template literals alone: their text is data. For lit's `html` and `css` tags in
 * the widget's own modules the indentation is not, so it is dropped before bundling. The source (and
 * the browser tests that load it) keep the readable form; tests/widget/bundle-*.test.ts check the result.
 */
export function minifyLitTemplates(): Plugin {
  return {
    name: 'ask-user-kit:minify-lit-templates',
    transform(code, id) {
      if (!/\/widget\/[^/]+\.ts$/.test(id) || !/\b(html|css)`/.test(code)) return null;
      const edits: Array<[number, number, string]> = [];
      for (const node of walk(parseAst(code))) {
        if (node.type !== 'TaggedTemplateExpression') continue;
        const tag = (node.tag as Node & { name?: string }).name;
        if (tag !== 'html' && tag !== 'css') continue;
        const quasis = (node.quasi as { quasis: Array<Node & { value: { raw: string } }> }).quasis;
        quasis.forEach((q, i) => {
          const raw = q.value.raw;
          const out = tag === 'css' ? collapseCss(raw) : collapseHtml(raw, i === 0, i === quasis.length - 1);
          if (out !== raw) edits.push([q.start, q.end, out]);
        });
      }
      return edits.length ? { code: applyEdits(code, edits), map: null } : null;
    },
  };
}

/**
 * For the one-file standalone build: the widget's relative `import('./x.js')` become static imports.
 * Inlining dynamic imports as they are would keep their lazy semantics by wrapping every module they reach
 * in an init function (about 0.9 KB gzip here) for nothing, since the file is loaded whole. The usual form,
 * `(await import('./x.js')).name`, becomes the imported binding itself; any other use gets the namespace
 * (which costs a namespace-object helper, about 0.2 KB).
 */
export function staticLazyImports(): Plugin {
  type Source = Node & { value?: unknown };
  const relative = (node: Node | undefined): string | undefined => {
    const source = node?.type === 'ImportExpression' ? (node.source as Source) : undefined;
    return source?.type === 'Literal' && typeof source.value === 'string' && source.value.startsWith('./') ? source.value : undefined;
  };
  return {
    name: 'ask-user-kit:static-lazy-imports',
    applyToEnvironment: (environment) => environment.name === 'standalone',
    transform(code, id) {
      if (!/\/widget\/[^/]+\.ts$/.test(id) || !code.includes('import(')) return null;
      const edits: Array<[number, number, string]> = [];
      const imports: string[] = [];
      const done = new Set<Node>();
      const local = () => `__static${imports.length}`;
      for (const node of walk(parseAst(code))) {
        if (node.type === 'MemberExpression' && !node.computed) {
          const awaited = node.object as Node;
          const inner = awaited.type === 'AwaitExpression' ? (awaited.argument as Node) : undefined;
          const from = relative(inner);
          const property = node.property as Node & { name?: string };
          if (!from || property.type !== 'Identifier') continue;
          const name = local();
          imports.push(`import { ${property.name} as ${name} } from ${JSON.stringify(from)};`);
          edits.push([node.start, node.end, name]);
          done.add(inner!);
        } else if (node.type === 'ImportExpression' && !done.has(node)) {
          const from = relative(node);
          if (!from) continue;
          const name = local();
          imports.push(`import * as ${name} from ${JSON.stringify(from)};`);
          edits.push([node.start, node.end, `Promise.resolve(${name})`]);
        }
      }
      return edits.length ? { code: imports.join('') + applyEdits(code, edits), map: null } : null;
    },
  };
}

/** `_a`, `_b`, … `_Z`, `_aa`, …: the n-th short private name. */
const shortName = (n: number): string => {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  for (let i = n + 1; i > 0; i = Math.floor((i - 1) / letters.length)) name = letters[(i - 1) % letters.length] + name;
  return `_${name}`;
};

/**
 * Shortens the widget's own `_private` members (`_phase`, `_renderForm`, …) in the finished chunks; the
 * minifier keeps property names as they are. Only names written in widget/*.ts are renamed, each to the
 * same `_x` in every chunk, so a member used across chunks still matches; lit's own internals are named
 * `_$…` and are never matched. A `_name` the widget does not declare, or one written as a string (which
 * renaming would miss), stops the build instead of breaking the element at run time.
 */
export function manglePrivateMembers(widgetDir = fileURLToPath(new URL('./widget/', import.meta.url))): Plugin {
  const include = /^_[a-zA-Z]/;
  let cache: Record<string, string> | undefined;
  const ownNames = () => {
    if (cache) return cache;
    const names = new Set<string>();
    for (const file of readdirSync(widgetDir).filter((f) => f.endsWith('.ts'))) {
      for (const [name] of readFileSync(widgetDir + file, 'utf8').matchAll(/(?<![\w$-])_[a-zA-Z]\w*/g)) names.add(name);
    }
    cache = Object.fromEntries([...names].sort().map((name, i) => [name, shortName(i)]));
    return cache;
  };
  return {
    name: 'ask-user-kit:mangle-private-members',
    generateBundle(_options, bundle) {
      const own = ownNames();
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const quoted = chunk.code.match(/[`'"]_[a-zA-Z]\w*[`'"]/g)?.filter((q) => q.slice(1, -1) in own);
        if (quoted?.length) throw new Error(`${chunk.fileName}: ${quoted.join(', ')} written as a string would escape renaming; use the member itself.`);
        const result = minifySync(chunk.fileName, chunk.code, {
          module: true,
          compress: false,
          mangle: false,
          mangleProps: { include, cache: own },
        });
        if (result.errors.length) throw new Error(`${chunk.fileName}: ${result.errors.map((e) => e.message).join('; ')}`);
        const foreign = Object.keys(result.mangleCache ?? {}).filter((name) => !(name in own));
        if (foreign.length) throw new Error(`${chunk.fileName}: ${foreign.join(', ')} are not the widget's own members; add them to an exclude.`);
        chunk.code = result.code;
      }
    },
  };
}

/** Fields assigned in the constructor (and legacy decorators, should one appear): what tsconfig.json says. */
export const OXC_OPTIONS = {
  decorator: { legacy: true },
  assumptions: { setPublicClassFields: true },
  typescript: { removeClassFieldsWithoutInitializer: true },
};

export default defineConfig({
  publicDir: false,
  plugins: [minifyLitTemplates(), staticLazyImports(), manglePrivateMembers()],
  oxc: OXC_OPTIONS,
  environments: {
    module: { consumer: 'client', build: widgetBuild('ask-user-kit.js', LIT_EXTERNAL) },
    standalone: { consumer: 'client', build: widgetBuild('ask-user-kit.standalone.js', undefined) },
  },
  builder: {
    // One after the other, so the two reports print in a stable order.
    async buildApp(builder) {
      await builder.build(builder.environments.module!);
      await builder.build(builder.environments.standalone!);
    },
  },
});
