/**
 * A fresh clone's first `npm test` or `npm run demo` installs for minutes: tests/ensure-deps.sh says what it
 * is doing and how long that usually takes, then a line at every tick while npm ci runs, and how long it
 * took. Here npm is a stand-in on PATH that takes a few seconds and leaves a Node 24 behind, in a copy of
 * the script with a lock file of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';

const script = new URL('../ensure-deps.sh', import.meta.url).pathname;

test('an install says what it does, shows a line every tick while npm ci runs, and how long it took', async (t) => {
  const dir = await makeTempDir('ask-user-ensure-deps-');
  t.after(() => dir.remove());
  mkdirSync(join(dir.path, 'tests'));
  mkdirSync(join(dir.path, 'bin'));
  copyFileSync(script, join(dir.path, 'tests/ensure-deps.sh'));
  writeFileSync(join(dir.path, 'package-lock.json'), '{"lockfileVersion":3}\n');
  // npm ci's stand-in: three seconds of work, then node_modules with a Node 24.
  writeFileSync(
    join(dir.path, 'bin/npm'),
    '#!/usr/bin/env bash\nsleep 3\nmkdir -p node_modules/.bin\nprintf "#!/bin/sh\\necho v24.0.0\\n" > node_modules/.bin/node\nchmod +x node_modules/.bin/node\n',
  );
  chmodSync(join(dir.path, 'bin/npm'), 0o755);
  const run = spawnSync('bash', ['tests/ensure-deps.sh'], {
    cwd: dir.path,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(dir.path, 'bin')}:${process.env.PATH}`, ENSURE_DEPS_TICK_SECONDS: '1' },
  });
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stderr.split('\n');
  assert.ok(
    lines.some((l) => /installing dependencies with npm ci: about \d+ packages.*usually/.test(l)),
    run.stderr,
  );
  assert.ok(lines.filter((l) => /npm ci still installing \(\d+ s\)/.test(l)).length >= 1, run.stderr);
  assert.ok(
    lines.some((l) => /dependencies installed in \d+ s/.test(l)),
    run.stderr,
  );

  // Installed and stamped: the next run says nothing and installs nothing.
  const again = spawnSync('bash', ['tests/ensure-deps.sh'], {
    cwd: dir.path,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(dir.path, 'bin')}:${process.env.PATH}` },
  });
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stderr, '');
});
