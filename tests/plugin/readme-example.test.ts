/**
 * The README's drop-in examples (Koa, Express, Hono) compile against the plugin as it is: each block is
 * cut out of README.md, its package imports pointed at the sources, and type-checked with the project's
 * compiler options. Docs that name a removed export or a wrong option fail here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('../../', import.meta.url).pathname;

/** The first ts block after `heading` in README.md. */
function example(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `README has "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, `the section "${heading}" has a ts code block`);
  return block[1]!;
}

const ENTRIES: Array<[string, string]> = [
  ['ask-user-kit/plugin/loop', 'plugin/loop/index.js'],
  ['ask-user-kit/plugin/koa', 'plugin/adapters/koa.js'],
  ['ask-user-kit/plugin/express', 'plugin/adapters/express.js'],
  ['ask-user-kit/plugin/hono', 'plugin/adapters/hono.js'],
  ['ask-user-kit/plugin/fetch', 'plugin/adapters/fetch.js'],
  ['ask-user-kit/plugin', 'plugin/index.js'],
];

/**
 * What the examples leave to the host: its tools, who owns a session, and its login (Passport's
 * `req.user` on Express).
 */
const HOST =
  "import type { LoopTool } from '" +
  join(root, 'plugin/loop/index.js') +
  "';\n" +
  'declare const myTools: LoopTool[];\ndeclare function ownsSession(user: unknown, sessionId: string): boolean;\n' +
  'declare global { namespace Express { interface Request { user?: { id: string } } } }\n';

/** The host's login middleware, in each framework's type. */
const LOGIN: Record<string, string> = {
  '## Drop it into your Koa agent server': "declare const login: import('koa').Middleware;\n",
  '### On Express 5': "declare const login: import('express').RequestHandler;\n",
  '### On Hono (and any Fetch-API host)': "declare const login: import('hono').MiddlewareHandler;\n",
};

for (const heading of ['## Drop it into your Koa agent server', '### On Express 5', '### On Hono (and any Fetch-API host)']) {
  test(`the README example "${heading}" type-checks against the plugin sources`, () => {
    let source = example(heading);
    for (const [name, file] of ENTRIES) source = source.replaceAll(`'${name}'`, `'${join(root, file)}'`);
    assert.doesNotMatch(source, /ask-user-kit\//, 'every package import was pointed at the sources');
    const dir = mkdtempSync(join(root, 'tests/plugin/.readme-'));
    try {
      const file = join(dir, 'example.ts');
      writeFileSync(file, HOST + LOGIN[heading] + source);
      // TypeScript 7 has no compiler API in JavaScript: run its tsc on a config that extends the project's.
      const config = { extends: join(root, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: [], files: [file] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
      const tsc = spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
        encoding: 'utf8',
      });
      const problems = tsc.stdout.split('\n').filter((line) => line.includes('error TS'));
      assert.deepEqual(problems, [], 'the example compiles');
      assert.equal(tsc.status, 0, `tsc exited ${tsc.status}: ${tsc.stdout}${tsc.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
