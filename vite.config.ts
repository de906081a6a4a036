/**
 * `vite build` produces both browser bundles of the widget in one run, as two build environments:
 *   dist/widget/ask-user-kit.js             ES module, lit and @lit/context external (for bundlers)
 *   dist/widget/ask-user-kit.standalone.js  one self-contained module with lit inside (a WebView's <script type="module">)
 *
 * The element uses legacy decorators with `useDefineForClassFields: false` (tsconfig.json). Vite 8's Oxc
 * transform reads those from the tsconfig; the `oxc` block below states the same choice so the build does
 * not depend on which tsconfig Oxc happens to resolve. Native class fields would shadow Lit's reactive
 * accessors and the element would never re-render; tests/widget/bundle-*.test.ts checks the built files.
 */
import { defineConfig, type BuildEnvironmentOptions } from 'vite';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./widget/index.ts', import.meta.url));
const outDir = fileURLToPath(new URL('./dist/widget', import.meta.url));

/** lit and everything it is made of, plus @lit/context: one copy per page, owned by the host's bundler. */
export const LIT_EXTERNAL = /^(lit|lit-html|lit-element|@lit\/[^/]+)(\/.*)?$/;

/** Settings both bundles share, so `bench/bundle-size.ts` can build a lit-only baseline the same way. */
export function widgetBuild(fileName: string, external: RegExp | undefined, entryFile: string = entry): BuildEnvironmentOptions {
  return {
    outDir,
    // Never wipe dist/widget: `tsc -p tsconfig.build.json` writes the .d.ts files there, and a later
    // `vite build` alone (as before the browser tests) must not delete them. Both file names are fixed.
    emptyOutDir: false,
    // ES2021, as lit 3 itself ships: class static blocks (ES2022) would shut out iOS 15 WebViews for nothing.
    target: 'es2021',
    minify: 'oxc',
    sourcemap: false,
    copyPublicDir: false,
    reportCompressedSize: true,
    lib: { entry: entryFile, formats: ['es'], fileName: () => fileName },
    rolldownOptions: {
      ...(external ? { external: [external] } : {}),
      // Vite leaves whitespace in ES library builds; these files ship as they are, so print them compact too.
      output: { minify: { compress: true, mangle: true, codegen: true } },
    },
  };
}

/** Legacy decorators, fields assigned in the constructor: what tsconfig.json says, stated for the build. */
export const OXC_OPTIONS = {
  decorator: { legacy: true },
  assumptions: { setPublicClassFields: true },
  typescript: { removeClassFieldsWithoutInitializer: true },
};

export default defineConfig({
  publicDir: false,
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
