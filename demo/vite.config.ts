/**
 * The demo page's build: root demo/page, output demo/dist, the widget bundled from its source. Same
 * decorator settings as the library build (legacy decorators, no native class fields) or Lit's reactive
 * properties would be shadowed and the card would never re-render.
 */
import { defineConfig } from 'vite';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The page imports the package's public entries (`ask-user-kit/widget`) as a host's page does; they
 * resolve to the sources through tsconfig.json's `paths`, the one list of them (tests/demo checks it
 * against package.json's exports). Exact matches, so `…/widget` never takes `…/widget/standalone`.
 */
const { paths } = (
  JSON.parse(readFileSync(new URL('../tsconfig.json', import.meta.url), 'utf8')) as {
    compilerOptions: { paths: Record<string, [string]> };
  }
).compilerOptions;
const alias = Object.entries(paths).map(([entry, [source]]) => ({
  find: new RegExp(`^${entry.replaceAll('/', '\\/')}$`),
  replacement: fileURLToPath(new URL(`../${source}`, import.meta.url)),
}));

export default defineConfig({
  root: fileURLToPath(new URL('./page', import.meta.url)),
  publicDir: false,
  resolve: { alias },
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
