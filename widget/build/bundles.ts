/**
 * The two bundles' build settings, shared by vite.config.ts and bench/bundle-size.ts (which builds a
 * lit-only baseline the same way).
 */
import { fileURLToPath } from 'node:url';
import type { BuildEnvironmentOptions } from 'vite';

const entry = fileURLToPath(new URL('../index.ts', import.meta.url));
const outDir = fileURLToPath(new URL('../../dist/widget', import.meta.url));

/** lit and everything it is made of, plus @lit/context: one copy per page, owned by the host's bundler. */
export const LIT_EXTERNAL = /^(lit|lit-html|lit-element|@lit\/[^/]+)(\/.*)?$/;

/** Settings both bundles share, so `bench/bundle-size.ts` can build a lit-only baseline the same way. */
export function widgetBuild(fileName: string, external: RegExp | undefined, entryFile: string = entry): BuildEnvironmentOptions {
  // Both bundles leave code a card needs only once it has been answered (the client's calls, the SSE
  // parser) in sibling chunks; what a card needs before it can be answered stays in the entry. The standalone's chunks carry its name,
  // so the two builds' files stay apart; they import from the standalone file itself, the same module.
  const chunks = external === undefined ? 'ask-user-kit.standalone-[name].js' : 'ask-user-kit.[name].js';
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
      // exactly the public ones (the package test compares both); the default
      // ('strict') would move such code into extra shared chunks instead.
      preserveEntrySignatures: 'allow-extension',
      // Vite leaves whitespace in ES library builds; these files ship as they are, so print them compact too.
      output: {
        minify: { compress: true, mangle: true, codegen: true },
        chunkFileNames: chunks,
      },
    },
  };
}

/** Fields assigned in the constructor (and legacy decorators, should one appear): what tsconfig.json says. */
export const OXC_OPTIONS = {
  decorator: { legacy: true },
  assumptions: { setPublicClassFields: true },
  typescript: { removeClassFieldsWithoutInitializer: true },
};
