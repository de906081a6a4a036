/** Short names for the widget's `_private` members (widget/build/mangle-private-members.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manglePrivateMembers, shortName } from '../../../widget/build/mangle-private-members.js';

test('short names count _a … _Z, then _aa, each distinct', () => {
  assert.deepEqual([0, 1, 25, 26, 51, 52].map(shortName), ['_a', '_b', '_z', '_A', '_Z', '_aa']);
  assert.equal(new Set(Array.from({ length: 3000 }, (_, i) => shortName(i))).size, 3000);
});

function bundleWith(code: string) {
  return { 'x.js': { type: 'chunk', fileName: 'x.js', code } } as Record<string, { type: string; fileName: string; code: string }>;
}

test("the widget's own members are renamed the same in every chunk; one written as a string stops the build", () => {
  const dir = mkdtempSync(join(tmpdir(), 'mangle-'));
  try {
    writeFileSync(join(dir, 'card.ts'), 'class C { _phase = 1; _render() { return this._phase; } } const t = html`<a target="_blank">`;');
    const plugin = manglePrivateMembers(dir + '/');
    const generate = plugin.generateBundle as (
      options: unknown,
      bundle: Record<string, { type: string; fileName: string; code: string }>,
    ) => void;
    const bundle = bundleWith('class C { constructor() { this._phase = 1; } _render() { return this._phase; } }');
    generate({}, bundle);
    assert.doesNotMatch(bundle['x.js']!.code, /_phase|_render/);
    assert.equal(
      bundle['x.js']!.code,
      'class C{constructor(){this._a=1}_b(){return this._a}}',
      'each name shortened the same way everywhere',
    );
    assert.throws(() => generate({}, bundleWith('const k = "_phase"; class C { _phase = 1 }')), /written as a string/);
    const link = bundleWith('const t = `<a target="_blank">`, k = "_blank";');
    generate({}, link);
    assert.match(link['x.js']!.code, /target="_blank".*`_blank`/, 'a value that starts with _ is no member: kept as it is');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
