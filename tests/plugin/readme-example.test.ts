/**
 * The README's "drop it into your Koa agent server" example compiles against the plugin as it is: the
 * block is cut out of README.md, its package imports pointed at the sources, and type-checked with the
 * project's compiler options. Docs that name a removed export or a wrong option fail here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('../../', import.meta.url).pathname;

function dropInExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Drop it into your Koa agent server'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'the section has a ts code block');
  return block[1]!;
}

test('the README drop-in example type-checks against the plugin sources', () => {
  const source = dropInExample()
    .replaceAll("'ask-user-kit/plugin/loop'", `'${join(root, 'plugin/loop/index.js')}'`)
    .replaceAll("'ask-user-kit/plugin/koa'", `'${join(root, 'plugin/adapters/koa.js')}'`)
    .replaceAll("'ask-user-kit/plugin'", `'${join(root, 'plugin/index.js')}'`);
  assert.doesNotMatch(source, /ask-user-kit\//, 'every package import was pointed at the sources');
  // What the example leaves to the host: its own tools and its notion of who owns a session.
  const host = "import type { LoopTool } from '" + join(root, 'plugin/loop/index.js') + "';\n" +
    'declare const myTools: LoopTool[];\ndeclare function ownsSession(user: unknown, sessionId: string): boolean;\n';
  const dir = mkdtempSync(join(root, 'tests/plugin/.readme-'));
  try {
    const file = join(dir, 'example.ts');
    writeFileSync(file, host + source);
    // TypeScript 7 has no compiler API in JavaScript: run its tsc on a config that extends the project's.
    const config = { extends: join(root, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: [], files: [file] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' });
    const problems = tsc.stdout.split('\n').filter((line) => line.includes('error TS'));
    assert.deepEqual(problems, [], 'the example compiles');
    assert.equal(tsc.status, 0, `tsc exited ${tsc.status}: ${tsc.stdout}${tsc.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
