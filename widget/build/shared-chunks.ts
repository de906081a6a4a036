/**
 * Lazy modules the standalone file loads from the ES build's own chunk instead of building its own: widget
 * module → that chunk. Such a module imports nothing from the widget, so its chunk stands alone and serves
 * both bundles, and a host serves one copy of it.
 */
import type { Plugin } from 'vite';

export const SHARED_CHUNKS: Readonly<Record<string, string>> = { './markdown.js': './ask-user-kit.markdown.js' };

/** The chunk files, as the standalone file names them. */
export const SHARED_FILES: ReadonlySet<string> = new Set(Object.values(SHARED_CHUNKS));

/**
 * For the standalone build: `import('./markdown.js')` points at the ES build's chunk beside the file, left
 * external so it is loaded at run time, not bundled a second time. Other lazy imports get the standalone's
 * own chunks.
 */
export function sharedChunkImports(): Plugin {
  return {
    name: 'ask-user-kit:shared-chunks',
    enforce: 'pre',
    applyToEnvironment: (environment) => environment.name === 'standalone',
    resolveId(source, importer) {
      const chunk = SHARED_CHUNKS[source];
      return chunk && importer && /[/\\]widget[/\\][^/\\]+\.ts$/.test(importer) ? { id: chunk, external: true } : null;
    },
  };
}
