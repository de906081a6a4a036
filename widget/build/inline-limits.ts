/** The contract's limits as numbers in the widget's bundles, instead of the whole `LIMITS` object. */
import { parseAst, type Plugin } from 'vite';
import { LIMITS } from '../../plugin/contract/limits.js';
import { applyEdits, walk, type Node } from './ast.js';

/** The module that declares `LIMITS`, and an import of `LIMITS` from it. */
const LIMITS_MODULE = /[/\\]plugin[/\\]contract[/\\]limits\.ts(\?.*)?$/;
const IMPORTS_LIMITS = /import\s*\{[^}]*\bLIMITS\b[^}]*\}\s*from\s*['"][^'"]*\/limits\.js['"]/;

/**
 * Each `LIMITS.name` read becomes the number itself. The object is plain data (plugin/contract/limits.ts,
 * still the one source), but the minifier cannot drop the properties nobody reads, so the card would carry
 * every server-only limit for the two or three it uses. Once no read is left, the bundler drops the object.
 */
export function inlineLimits(): Plugin {
  const values: Readonly<Record<string, number>> = LIMITS;
  return {
    name: 'ask-user-kit:inline-limits',
    transform(code, id) {
      if (!code.includes('LIMITS.') || !(LIMITS_MODULE.test(id) || IMPORTS_LIMITS.test(code))) return null;
      const edits: Array<[number, number, string]> = [];
      for (const node of walk(parseAst(code))) {
        if (node.type !== 'MemberExpression' || node.computed) continue;
        const object = node.object as Node & { name?: string };
        const name = (node.property as Node & { name?: string }).name;
        if (object.type !== 'Identifier' || object.name !== 'LIMITS' || name === undefined) continue;
        if (!Object.hasOwn(values, name)) throw new Error(`${id}: LIMITS.${name} is not a limit of the contract`);
        edits.push([node.start, node.end, String(values[name])]);
      }
      return edits.length ? { code: applyEdits(code, edits), map: null } : null;
    },
  };
}
