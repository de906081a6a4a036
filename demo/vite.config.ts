/**
 * The demo page's build: root demo/page, output demo/dist, the widget bundled from its source. Same
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
  },
});
