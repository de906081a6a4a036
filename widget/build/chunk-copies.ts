/**
 * Lazy modules whose chunk carries its own copy of everything it imports, so it imports nothing from the
 * entry. A chunk that shared a module with the entry would make the bundler export that module's names
 * from the entry, and the entry's exports must stay exactly the public ones (widget/index.ts). Only for
 * modules whose imports are constants and pure functions, where a second copy behaves the same: the answer
 * checks (the server's rules and the contract's limits).
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

/** Module paths, from the repository's root. */
export const SELF_CONTAINED: readonly string[] = ['widget/submit-rules.ts'];

/** Marks a module's copy: another id, so the bundler keeps it apart from the entry's module. */
export const COPY = '?chunk-copy';

export function chunkCopies(): Plugin {
  const isRoot = (path: string) => SELF_CONTAINED.some((m) => path.replaceAll('\\', '/').endsWith(`/${m}`));
  return {
    name: 'ask-user-kit:chunk-copies',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !source.startsWith('.')) return null;
      if (!importer.endsWith(COPY) && !isRoot(importer)) return null;
      const resolved = await this.resolve(source, importer.replace(COPY, ''), { ...options, skipSelf: true });
      return resolved && !resolved.external ? { id: resolved.id.split('?')[0] + COPY } : null;
    },
    load: (id) => (id.endsWith(COPY) ? readFileSync(id.slice(0, -COPY.length), 'utf8') : null),
  };
}
