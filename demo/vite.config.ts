/**
 * The demo page's build: root demo/page, output demo/dist, the widget bundled from its source, and the
 * page's service worker (page/sw.ts) as `sw.js` at the root, a script of its own that imports nothing. Same
 * decorator settings as the library build (legacy decorators, no native class fields) or Lit's reactive
 * properties would be shadowed and the card would never re-render.
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { SOURCE_ENTRIES } from './source-entries.js';

export default defineConfig({
  root: fileURLToPath(new URL('./page', import.meta.url)),
  publicDir: false,
  // The page imports the package's public entries, as a host's page does, built from their sources.
  resolve: { alias: SOURCE_ENTRIES },
  logLevel: 'warn',
  oxc: {
    decorator: { legacy: true },
    assumptions: { setPublicClassFields: true },
    typescript: { removeClassFieldsWithoutInitializer: true },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: {
      input: {
        index: fileURLToPath(new URL('./page/index.html', import.meta.url)),
        sw: fileURLToPath(new URL('./page/sw.ts', import.meta.url)),
      },
      // The worker is registered at /sw.js, so its scope is the whole page; the rest keeps hashed names.
      output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
    },
  },
});
