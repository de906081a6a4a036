/** The standalone bundle's lazy imports made static, so the one file needs no lazy-module wrappers. */
import type { Plugin } from 'vite';
import { parseAst } from 'vite';
import { applyEdits, walk, type Node } from './ast.js';
import { SHARED_CHUNKS, SHARED_FILES } from './shared-chunks.js';

/**
 * For the one-file standalone build: the widget's relative `import('./x.js')` become static imports.
 * Inlining dynamic imports as they are would keep their lazy semantics by wrapping every module they reach
 * in an init function (about 0.9 KB gzip here) for nothing, since the file is loaded whole. The usual form,
 * `(await import('./x.js')).name`, becomes the imported binding itself; any other use gets the namespace
 * (which costs a namespace-object helper, about 0.2 KB). Modules in SHARED_CHUNKS stay lazy, pointed at
 * the ES build's chunk beside the file: they are large and most cards never need them (shared-chunks.ts).
 */
export function staticLazyImports(): Plugin {
  type Source = Node & { value?: unknown };
  const relative = (node: Node | undefined): string | undefined => {
    const source = node?.type === 'ImportExpression' ? (node.source as Source) : undefined;
    const value = source?.type === 'Literal' && typeof source.value === 'string' ? source.value : '';
    return value.startsWith('./') && !(value in SHARED_CHUNKS) ? value : undefined;
  };
  return {
    name: 'ask-user-kit:static-lazy-imports',
    applyToEnvironment: (environment) => environment.name === 'standalone',
    // Vite finds no such file next to the sources and asks on: the chunk is loaded at run time, not bundled.
    resolveId: (source) => (SHARED_FILES.has(source) ? { id: source, external: true } : null),
    transform(code, id) {
      if (!/\/widget\/[^/]+\.ts$/.test(id) || !code.includes('import(')) return null;
      const edits: Array<[number, number, string]> = [];
      const imports: string[] = [];
      const done = new Set<Node>();
      const local = () => `__static${imports.length}`;
      for (const node of walk(parseAst(code))) {
        if (node.type === 'MemberExpression' && !node.computed) {
          const awaited = node.object as Node;
          const inner = awaited.type === 'AwaitExpression' ? (awaited.argument as Node) : undefined;
          const from = relative(inner);
          const property = node.property as Node & { name?: string };
          if (!from || property.type !== 'Identifier') continue;
          const name = local();
          imports.push(`import { ${property.name} as ${name} } from ${JSON.stringify(from)};`);
          edits.push([node.start, node.end, name]);
          done.add(inner!);
        } else if (node.type === 'ImportExpression' && !done.has(node)) {
          const source = node.source as Source;
          const shared = typeof source.value === 'string' ? SHARED_CHUNKS[source.value] : undefined;
          if (shared) edits.push([source.start, source.end, JSON.stringify(shared)]);
          const from = relative(node);
          if (!from) continue;
          const name = local();
          imports.push(`import * as ${name} from ${JSON.stringify(from)};`);
          edits.push([node.start, node.end, `Promise.resolve(${name})`]);
        }
      }
      return edits.length ? { code: imports.join('') + applyEdits(code, edits), map: null } : null;
    },
  };
}
