/**
 * 1,000 chat streams opened and dropped by the client (fixtures/sse-cycles.ts, in a child process so
 * the counts are its own): afterwards no timer, socket, request or listener is left over compared with
 * before, no warning was emitted (MaxListenersExceeded would be one), and the session paused on a
 * question the whole time still has its card and its continue still runs to `done`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/sse-cycles.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CYCLES = 1000;

function runChild(): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: ROOT,
      env: { ...process.env, CYCLES: String(CYCLES) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`sse-cycles child exited ${code}\n${out}\n${err}`));
      else resolve(JSON.parse(line) as Record<string, any>);
    });
  });
}

describe(`${CYCLES} SSE connect/disconnect cycles`, () => {
  it('leave no timer, socket or listener behind, and the paused run survives', async () => {
    const report = await runChild();
    const { before, after } = report;
    // The streams were real: dropped ones after the headers saw an event stream, the last third saw model text.
    const third = Math.floor(CYCLES / 3);
    assert.ok(report.seen['after-headers'].headers >= third, JSON.stringify(report.seen));
    assert.ok(report.seen['after-text'].text >= third, JSON.stringify(report.seen));

    assert.equal(after.connections, 0, 'no connection left open on the server');
    for (const [type, n] of Object.entries(after.tracked as Record<string, number>)) {
      assert.ok(
        n <= (before.tracked[type] ?? 0),
        `${type}: ${n} live after, ${before.tracked[type] ?? 0} before (async_hooks, unref'd included)`,
      );
    }
    for (const [type, n] of Object.entries(after.active as Record<string, number>)) {
      assert.ok(n <= (before.active[type] ?? 0), `${type}: ${n} active after, ${before.active[type] ?? 0} before (getActiveResourcesInfo)`);
    }
    assert.deepEqual(after.processListeners, before.processListeners, 'listeners on process');
    assert.deepEqual(after.serverListeners, before.serverListeners, 'listeners on the server');
    assert.deepEqual(report.warnings, [], 'no process warning');

    assert.equal(report.pendingAfter?.id, report.pausedRequestId, 'the paused card is still there');
    assert.equal(report.pendingAfter?.status, 'pending');
    assert.equal(report.pendingAfter?.resumable, true);
    assert.equal(report.continueStatus, 200);
    assert.deepEqual(JSON.parse(report.continueDone), { reason: 'completed' });
  });
});
