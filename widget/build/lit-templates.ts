/** Drops the layout whitespace of lit `html` and `css` templates before bundling (the minifier keeps template text). */
import { parseAst, type Plugin } from 'vite';
import { applyEdits, walk, type Node } from './ast.js';

/**
 * Whitespace of a lit `html` template part. A run holding a line break is indentation: next to a tag
 * boundary or an end of the template it goes, anywhere else (between attributes, between two
 * expressions) it becomes one space. Runs without a line break are written on purpose and stay.
 */
export function collapseHtml(raw: string, first: boolean, last: boolean): string {
  return raw.replace(/\s*\n\s*/g, (run, at: number) => {
    const before = at === 0 ? (first ? '>' : '') : raw[at - 1];
    const after = at + run.length === raw.length ? (last ? '<' : '') : raw[at + run.length];
    return before === '>' || after === '<' ? '' : ' ';
  });
}

/** A `css` template part without comments and layout whitespace; spaces that separate tokens stay. */
export function collapseCss(raw: string): string {
  return raw
    .replace(/\/\*[^]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/ ?([{};,>]) ?/g, '$1')
    .replace(/: /g, ':')
    .replace(/;}/g, '}')
    .trim();
}

/**
 * The minifier leaves template literals alone: their text is data. For lit's `html` and `css` tags in
 * the widget's own modules the indentation is not, so it is dropped before bundling. The source (and
 * the browser tests that load it) keep the readable form; tests/widget/bundle-*.test.ts check the result.
 */
export function minifyLitTemplates(): Plugin {
  return {
    name: 'ask-user-kit:minify-lit-templates',
    transform(code, id) {
      if (!/\/widget\/[^/]+\.ts$/.test(id) || !/\b(html|css)`/.test(code)) return null;
      const edits: Array<[number, number, string]> = [];
      for (const node of walk(parseAst(code))) {
        if (node.type !== 'TaggedTemplateExpression') continue;
        const tag = (node.tag as Node & { name?: string }).name;
        if (tag !== 'html' && tag !== 'css') continue;
        const quasis = (node.quasi as { quasis: Array<Node & { value: { raw: string } }> }).quasis;
        quasis.forEach((q, i) => {
          const raw = q.value.raw;
          const out = tag === 'css' ? collapseCss(raw) : collapseHtml(raw, i === 0, i === quasis.length - 1);
          if (out !== raw) edits.push([q.start, q.end, out]);
        });
      }
      return edits.length ? { code: applyEdits(code, edits), map: null } : null;
    },
  };
}
