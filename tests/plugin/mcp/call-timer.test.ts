/** The clock of an MCP call (plugin/mcp/call-timer.ts), on fake timers: it does not run while a card is open. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CallTimer, MAX_TIMER_MS } from '../../../plugin/mcp/call-timer.js';

test('it aborts with the SDK timeout error after the quiet time, and not while paused', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const timer = new CallTimer(1_000);
  t.mock.timers.tick(900);
  const resume = timer.pause();
  t.mock.timers.tick(60 * 60 * 1000);
  assert.equal(timer.signal.aborted, false, 'an open card stops the clock');
  resume();
  resume(); // twice is once
  t.mock.timers.tick(999);
  assert.equal(timer.signal.aborted, false, 'the clock starts again from zero');
  t.mock.timers.tick(1);
  assert.equal(timer.signal.aborted, true);
  const reason = timer.signal.reason as McpError;
  assert.ok(reason instanceof McpError);
  assert.equal(reason.code, ErrorCode.RequestTimeout);
  assert.equal(reason.message, 'MCP error -32001: Request timed out');
});

test('progress starts it again; two open cards need both closed; stop ends it', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const timer = new CallTimer(1_000);
  t.mock.timers.tick(800);
  timer.touch();
  t.mock.timers.tick(800);
  assert.equal(timer.signal.aborted, false);
  const a = timer.pause();
  const b = timer.pause();
  a();
  t.mock.timers.tick(5_000);
  assert.equal(timer.signal.aborted, false);
  b();
  timer.stop();
  t.mock.timers.tick(5_000);
  assert.equal(timer.signal.aborted, false, 'a stopped clock never fires');
});

test('a timeout past what setTimeout takes is held to its maximum; a non-positive one is refused', () => {
  assert.equal(MAX_TIMER_MS, 2 ** 31 - 1);
  const timer = new CallTimer(Number.MAX_SAFE_INTEGER);
  assert.equal(timer.signal.aborted, false);
  timer.stop();
  assert.throws(() => new CallTimer(0), /positive number of milliseconds/);
});
