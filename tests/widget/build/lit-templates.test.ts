/** The template minifier of the bundles (widget/build/lit-templates.ts): layout whitespace goes, meaning stays. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collapseCss, collapseHtml, minifyLitTemplates } from '../../../widget/build/lit-templates.js';

test('html: indentation next to tags and template ends goes; between attributes it is one space; written spaces stay', () => {
  assert.equal(
    collapseHtml('\n  <div class="a"\n    id="b">\n    text  here\n  </div>\n', true, true),
    '<div class="a" id="b">text  here</div>',
  );
  assert.equal(collapseHtml(' ${x} ', false, false), ' ${x} ');
  assert.equal(collapseHtml('\n  ', false, false), ' ', 'between two expressions a line break is one space, not nothing');
  assert.equal(collapseHtml('\n  <b>\n', false, false), '<b>', 'next to a tag it goes');
});

test('css: comments and layout whitespace go; spaces between tokens stay', () => {
  assert.equal(
    collapseCss('/* why */\n  :host {\n    margin: 0 auto;\n    color: red;\n  }\n  a > b { x: y }'),
    ':host{margin:0 auto;color:red}a>b{x:y}',
  );
});

test("the plugin rewrites only html and css templates of the widget's own modules", () => {
  const plugin = minifyLitTemplates();
  const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
  const code = 'const t = html`\n  <p>\n    ${a}\n  </p>\n`; const s = css`\n a { b: c; }\n`; const o = other`\n  keep\n`;';
  const out = transform(code, '/repo/widget/card.ts');
  assert.equal(out?.code, 'const t = html`<p>${a}</p>`; const s = css`a{b:c}`; const o = other`\n  keep\n`;');
  assert.equal(transform(code, '/repo/node_modules/lit/x.ts'), null, 'not lit itself');
});
