/** Short names for the widget's own `_private` members in the finished chunks. */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { minifySync, type Plugin } from 'vite';
import { SHARED_FILES } from './shared-chunks.js';

/** `_a`, `_b`, … `_Z`, `_aa`, …: the n-th short private name. */
export const shortName = (n: number): string => {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let name = '';
  for (let i = n + 1; i > 0; i = Math.floor((i - 1) / letters.length)) name = letters[(i - 1) % letters.length] + name;
  return `_${name}`;
};

/**
 * Shortens the widget's own `_private` members (`_phase`, `_renderForm`, …) in the finished chunks; the
 * minifier keeps property names as they are. Only names written in widget/*.ts are renamed, each to the
 * same `_x` in every chunk, so a member used across chunks still matches; lit's own internals are named
 * `_$…` and are never matched. A `_name` the widget does not declare, or one written as a string (which
 * renaming would miss), stops the build instead of breaking the element at run time. The shared chunks
 * (shared-chunks.ts) are left alone: they hold other packages' code and none of the widget's members.
 */
export function manglePrivateMembers(widgetDir = fileURLToPath(new URL('../', import.meta.url))): Plugin {
  const include = /^_[a-zA-Z]/;
  let cache: Record<string, string> | undefined;
  const ownNames = () => {
    if (cache) return cache;
    const names = new Set<string>();
    for (const file of readdirSync(widgetDir).filter((f) => f.endsWith('.ts'))) {
      // A quote before it makes it a value (`target="_blank"`), not a member.
      for (const [name] of readFileSync(widgetDir + file, 'utf8').matchAll(/(?<![\w$"'`-])_[a-zA-Z]\w*/g)) names.add(name);
    }
    cache = Object.fromEntries([...names].sort().map((name, i) => [name, shortName(i)]));
    return cache;
  };
  return {
    name: 'ask-user-kit:mangle-private-members',
    generateBundle(_options, bundle) {
      const own = ownNames();
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || SHARED_FILES.has(`./${chunk.fileName}`)) continue;
        const quoted = chunk.code.match(/[`'"]_[a-zA-Z]\w*[`'"]/g)?.filter((q) => q.slice(1, -1) in own);
        if (quoted?.length)
          throw new Error(`${chunk.fileName}: ${quoted.join(', ')} written as a string would escape renaming; use the member itself.`);
        const result = minifySync(chunk.fileName, chunk.code, {
          module: true,
          compress: false,
          mangle: false,
          mangleProps: { include, cache: own },
        });
        if (result.errors.length) throw new Error(`${chunk.fileName}: ${result.errors.map((e) => e.message).join('; ')}`);
        const foreign = Object.keys(result.mangleCache ?? {}).filter((name) => !(name in own));
        if (foreign.length)
          throw new Error(`${chunk.fileName}: ${foreign.join(', ')} are not the widget's own members; add them to an exclude.`);
        chunk.code = result.code;
      }
    },
  };
}
