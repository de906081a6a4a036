/**
 * What vite.config.ts's own build steps leave in dist/widget/ (the sizes themselves are measured by
 * bench/bundle-size.ts, not here): each bundle's lazily loaded chunks (the client calls, the SSE parser) and
 * entry exports that stay the public ones, the Markdown renderer, which both load from one stand-alone chunk
 * (§9.3), templates without indentation, and the widget's `_private` members shortened. Whether the built
 * element still works is tests/widget/bundle-*.test.ts.
 */
import { describe, it, before } from './helpers/bdd.js';
import { deepEqual, equal, ok } from './helpers/assert.js';

const source = async (file: string): Promise<string> => {
  const response = await fetch(`/dist/widget/${file}`);
  ok(response.ok, `/dist/widget/${file} must exist (run \`npx vite build\`); HTTP ${response.status}`);
  return response.text();
};

/** Distinct specifiers of `import()` calls (one chunk may be imported from several places). */
const dynamicImports = (code: string) => [...new Set([...code.matchAll(/\bimport\(\s*[`'"]([^`'"]+)[`'"]\s*\)/g)].map((m) => m[1]!))];
const staticImports = (code: string) =>
  [...code.matchAll(/\bfrom\s*["'`]([^"'`]+)["'`]|\bimport\s*["'`]([^"'`]+)["'`]/g)].map((m) => (m[1] ?? m[2])!);
/** The test server rewrites bare specifiers to node_modules paths; either form names lit or @lit/context. */
const isLit = (specifier: string) => /^(?:[./]*node_modules\/)?(?:lit|@lit\/context)(?:\/|$)/.test(specifier);

const MARKDOWN = './ask-user-kit.markdown.js';
/** The names of `export{a as B,…}` at the end of a bundle. */
const exportNames = (code: string) =>
  [...code.matchAll(/\bexport\s*\{([^}]*)\}/g)]
    .flatMap((m) =>
      m[1]!.split(',').map((e) =>
        e
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      ),
    )
    .sort();
/** Strings found in micromark's and DOMPurify's code, and nowhere in the widget's own. */
// The renderer (micromark), the sanitizer (DOMPurify) and our own hook on it; the link card writes noopener too, so that is no marker.
const MARKDOWN_MARKERS = ['codeFenced', 'ALLOWED_TAGS', 'afterSanitizeAttributes'];

describe('the widget build', () => {
  const bundles: Record<string, string> = {};
  /** The widget's own files; the Markdown chunk is other packages' code, built as they ship it. */
  const ownCode = () => Object.entries(bundles).filter(([name]) => name !== MARKDOWN);

  before(async () => {
    bundles.module = await source('ask-user-kit.js');
    bundles.standalone = await source('ask-user-kit.standalone.js');
    for (const entry of [bundles.module, bundles.standalone]) {
      for (const specifier of dynamicImports(entry)) bundles[specifier] ??= await source(specifier.replace(/^\.\//, ''));
    }
  });

  it('the ES module loads the client calls, the SSE parser, the Markdown renderer and the approval card lazily, from sibling chunks', () => {
    deepEqual(dynamicImports(bundles.module!).sort(), [
      './ask-user-kit.approval-card.js',
      './ask-user-kit.client-calls.js',
      './ask-user-kit.markdown.js',
      './ask-user-kit.sse-stream.js',
    ]);
    ok(bundles.module!.includes('parseChatEvent'), 'the entry still exports the pure event checks');
    ok(!bundles.module!.includes('max-buffer-size-exceeded'), 'eventsource-parser is not in the entry');
  });

  it('the approval chunk (§12) stands alone: it imports nothing, holds the JSON Schema validator, and no entry does', () => {
    for (const name of ['./ask-user-kit.approval-card.js', './ask-user-kit.standalone-approval-card.js']) {
      deepEqual(staticImports(bundles[name]!), [], `imports of ${name}`);
      ok(bundles[name]!.includes('2020-12'), `the validator is in ${name}`);
    }
    for (const entry of [bundles.module!, bundles.standalone!]) {
      ok(!entry.includes('2020-12') && !entry.includes('approvalDeniedWithReason'), 'no validator or approval words in an entry');
    }
  });

  it('each lazy chunk imports only lit and the entry, so shared code has one copy', () => {
    for (const chunk of ['./ask-user-kit.client-calls.js', './ask-user-kit.sse-stream.js']) {
      const imports = staticImports(bundles[chunk]!);
      ok(imports.length > 0 && imports.every((s) => s === './ask-user-kit.js' || isLit(s)), `${chunk} imports: ${imports.join(', ')}`);
    }
    ok(bundles['./ask-user-kit.sse-stream.js']!.includes('max-buffer-size-exceeded'), 'the parser is in the sse-stream chunk');
  });

  it('the standalone file loads the client calls, the SSE parser and the approval card from its own chunks, and the Markdown renderer from the shared one', () => {
    deepEqual(dynamicImports(bundles.standalone!).sort(), [
      './ask-user-kit.markdown.js',
      './ask-user-kit.standalone-approval-card.js',
      './ask-user-kit.standalone-client-calls.js',
      './ask-user-kit.standalone-sse-stream.js',
    ]);
    ok(!bundles.standalone!.includes('max-buffer-size-exceeded'), 'eventsource-parser is not in the standalone entry');
    ok(!bundles.standalone!.includes('/interactions/pending'), 'the client calls are not in the standalone entry');
    ok(bundles.standalone!.includes('lit-html'), 'lit is still inside the standalone entry');
  });

  it('the standalone’s chunks import only the standalone file, so lit and the element have one copy there', () => {
    for (const chunk of ['./ask-user-kit.standalone-client-calls.js', './ask-user-kit.standalone-sse-stream.js']) {
      const imports = staticImports(bundles[chunk]!);
      ok(imports.length > 0 && imports.every((s) => s === './ask-user-kit.standalone.js'), `${chunk} imports: ${imports.join(', ')}`);
      ok(!bundles[chunk]!.includes('lit-html'), `${chunk} holds no copy of lit`);
    }
    ok(bundles['./ask-user-kit.standalone-sse-stream.js']!.includes('max-buffer-size-exceeded'), 'the parser is in the sse-stream chunk');
    ok(bundles['./ask-user-kit.standalone-client-calls.js']!.includes('/interactions/pending'), 'the calls are in the client-calls chunk');
  });

  it('the entries carry the few contract limits they read as numbers, not the whole LIMITS object', () => {
    for (const entry of ['module', 'standalone']) {
      for (const name of ['bodyBytes', 'previewsTotal', 'cardQuestions'])
        ok(!bundles[entry]!.includes(name), `${entry} entry holds ${name}`);
    }
  });

  it('both entries export the same public names, none added for their chunks', () => {
    const names = exportNames(bundles.module!);
    ok(names.includes('AskUserCard') && names.includes('readChatEvents'), `ES module exports: ${names.join(', ')}`);
    ok(
      names.every((n) => /^[A-Za-z]{4,}$/.test(n)),
      `no short generated name: ${names.join(', ')}`,
    );
    deepEqual(exportNames(bundles.standalone!), names);
  });

  it('micromark and DOMPurify are in the Markdown chunk only, and that chunk imports nothing', () => {
    const markdown = bundles[MARKDOWN]!;
    for (const marker of MARKDOWN_MARKERS) {
      ok(markdown.includes(marker), `the Markdown chunk holds ${marker}`);
      for (const entry of ['module', 'standalone']) ok(!bundles[entry]!.includes(marker), `${entry} entry holds ${marker}`);
    }
    deepEqual(staticImports(markdown), [], 'the chunk stands alone, so the standalone file can load it too');
  });

  it('html and css templates lost their indentation', () => {
    for (const [name, code] of ownCode()) {
      equal(/\n[ \t]{2,}/.test(code), false, `${name} has indented lines`);
      ok(!code.includes('{\n'), `${name} has a css block opened on its own line`);
    }
    ok(bundles.module!.includes('<legend part="title" id="'), 'template markup is kept');
  });

  it('the widget’s own _private members are shortened, lit’s _$ internals left alone', () => {
    for (const [name, code] of ownCode()) {
      deepEqual([...new Set(code.match(/\._[a-zA-Z]{3,}\b/g) ?? [])], [], `${name} long private names`);
    }
    ok(/\._\$[A-Za-z]/.test(bundles.standalone!), 'lit’s internals keep their _$ names');
  });
});
