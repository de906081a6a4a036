/**
 * The demo page's build: root demo/page, output demo/dist, the widget bundled from its source. Same
 * decorator settings as the library build (legacy decorators, no native class fields) or Lit's reactive
 * properties would be shadowed and the card would never re-render.
 */
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('./page', import.meta.url)),
  publicDir: false,
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
