/** The standalone bundle's lazy imports made static (widget/build/static-lazy-imports.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staticLazyImports } from '../../../widget/build/static-lazy-imports.js';

const transform = staticLazyImports().transform as (code: string, id: string) => { code: string } | null;

test('`(await import("./x.js")).name` becomes the imported binding; another use gets the namespace', () => {
  const out = transform('const f = (await import("./calls.js")).start; const ns = import("./sse.js");', '/repo/widget/client.ts');
  assert.equal(
    out?.code,
    'import { start as __static0 } from "./calls.js";import * as __static1 from "./sse.js";const f = __static0; const ns = Promise.resolve(__static1);',
  );
});

test('a package import, or a module outside the widget, is left alone', () => {
  assert.equal(transform('const m = await import("lit");', '/repo/widget/a.ts'), null);
  assert.equal(transform('const m = await import("./x.js");', '/repo/plugin/a.ts'), null);
});
