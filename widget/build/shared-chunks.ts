/**
 * Lazy modules the standalone file loads from the ES build's own chunk instead of carrying them: widget
 * module → that chunk. Such a module imports nothing from the widget, so its chunk stands alone and serves
 * both bundles, and the standalone file stays small for the cards that never need it.
 */
export const SHARED_CHUNKS: Readonly<Record<string, string>> = { './markdown.js': './ask-user-kit.markdown.js' };

/** The chunk files, as the standalone file names them. */
export const SHARED_FILES: ReadonlySet<string> = new Set(Object.values(SHARED_CHUNKS));
