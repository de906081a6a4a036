/**
 * `npm run bench` stopped by Ctrl-C, a kill or a closed terminal ends the step under way with everything it
 * started: a step here stands for a benchmark that spawned a server and a Redis (a process tree), and the
 * runner (bench/lib/steps.sh, as bench/run.sh sources it) gets SIGINT, SIGTERM or SIGHUP sent to it alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';

const steps = new URL('../../bench/lib/steps.sh', import.meta.url).pathname;

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(check(), what);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} to the bench runner ends the step under way and every process it started`, async (t) => {
    const dir = await makeTempDir('ask-user-bench-steps-');
    t.after(() => dir.remove());
    const pids = join(dir.path, 'pids');
    // A "benchmark" that starts two long-lived children, as a step starts its server and Redis.
    writeFileSync(
      join(dir.path, 'runner.sh'),
      `source ${steps}\nstep tree 60 bash -c 'sleep 300 & a=$!; sleep 300 & echo "$a $!" > ${pids}; wait'\necho after-steps\n`,
    );
    const runner = spawn('bash', [join(dir.path, 'runner.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    runner.stdout.on('data', (d: Buffer) => (output += d));
    runner.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => runner.on('exit', (code) => resolve(code)));
    await until(() => existsSync(pids) && readFileSync(pids, 'utf8').trim().split(' ').length === 2, 'the step started its children');
    const children = readFileSync(pids, 'utf8').trim().split(' ').map(Number);
    assert.ok(children.every(alive));

    runner.kill(signal);
    assert.equal(await exited, 130, output);
    assert.match(output, new RegExp(`stopped by ${signal}`));
    assert.doesNotMatch(output, /after-steps/, 'no later step runs');
    await until(() => !children.some(alive), `no process of the step is left: ${children.filter(alive).join(', ')}`);
  });
}
