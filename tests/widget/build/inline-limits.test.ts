/** The contract's limits as numbers in the bundles (widget/build/inline-limits.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../../plugin/contract/limits.js';
import { inlineLimits } from '../../../widget/build/inline-limits.js';

const transform = inlineLimits().transform as (code: string, id: string) => { code: string } | null;

test('each LIMITS.name read of a module that imports LIMITS becomes its number', () => {
  const code = "import { LIMITS } from '../plugin/contract/limits.js';\nexport const max = LIMITS.customInput + LIMITS.url;";
  assert.equal(
    transform(code, '/repo/widget/answer-fields.ts')?.code,
    `import { LIMITS } from '../plugin/contract/limits.js';\nexport const max = ${LIMITS.customInput} + ${LIMITS.url};`,
  );
});

test('in the module that declares LIMITS too', () => {
  const code = 'export const LIMITS = { url: 2048 };\nexport const long = (s) => s.length > LIMITS.url;';
  const expected = 'export const LIMITS = { url: 2048 };\nexport const long = (s) => s.length > 2048;';
  assert.equal(transform(code, '/repo/plugin/contract/limits.ts')?.code, expected);
});

test('a module with a LIMITS of its own is left alone; an unknown limit stops the build', () => {
  assert.equal(transform('const LIMITS = { a: 1 }; export const a = LIMITS.a;', '/repo/widget/x.ts'), null);
  assert.throws(
    () => transform("import { LIMITS } from './limits.js'; export const a = LIMITS.nope;", '/repo/widget/x.ts'),
    /LIMITS\.nope is not a limit/,
  );
});
