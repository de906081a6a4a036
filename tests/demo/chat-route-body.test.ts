/**
 * The demo's `POST /api/chat` refuses a bad body the way the plugin's routes do: a JSON error body with
 * 400/413/415, nothing run, and the body itself neither echoed nor written to the server's log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './harness.js';

const CANARY = 'CANARY-7f3a-chat-body';

async function post(url: string, body: string, type = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

test('malformed, non-JSON and oversized chat bodies get the contract error body, and no log line quotes them', async (t) => {
  const h = await startHarness({ fallback: { text: 'should not run' } });
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) =>
    void logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' '));
  t.after(async () => {
    console.error = original;
    await h.close();
  });
  const cases = [
    { body: `{"sessionId":"s-body","message":"${CANARY}"`, type: 'application/json', status: 400 },
    { body: `sessionId=s-body&message=${CANARY}`, type: 'application/x-www-form-urlencoded', status: 415 },
    { body: JSON.stringify({ sessionId: 's-body', message: CANARY + 'x'.repeat(70 * 1024) }), type: 'application/json', status: 413 },
  ];
  for (const c of cases) {
    const res = await post(`${h.url}/api/chat`, c.body, c.type);
    assert.equal(res.status, c.status, c.type);
    assert.match(res.type, /^application\/json/);
    const error = (JSON.parse(res.text) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'invalid_request');
    assert.doesNotMatch(res.text, new RegExp(CANARY), 'the body is not echoed');
  }
  assert.equal(h.model.requests.length, 0, 'no model call for a refused message');
  assert.deepEqual(
    logged.filter((l) => l.includes(CANARY)),
    [],
    'no log line quotes the body',
  );
});
