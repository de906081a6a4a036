/**
 * readJsonBody, as a host's own route uses it (the README's drop-in example): when its error escapes to
 * Koa's `app.on('error')`, nothing in that error — message, cause, any property — carries the body.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { readJsonBody } from '../../../plugin/adapters/koa.js';

test('an escaped body error carries nothing of the body or its headers', async (t) => {
  const seen: string[] = [];
  const app = new Koa();
  app.on('error', (err) => void seen.push(inspect(err, { depth: 8, showHidden: true })));
  app.use(async (ctx) => {
    ctx.body = { got: await readJsonBody(ctx) };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(() => new Promise((r) => server.close(r)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const statuses: number[] = [];
  for (const [type, body] of [
    ['application/json', '{"customInput":"CANARY diary words", bad}'],
    ['text/CANARY-type', 'CANARY'],
    ['application/json', JSON.stringify({ customInput: 'CANARY '.repeat(12_000) })],
  ]) {
    statuses.push((await fetch(url, { method: 'POST', headers: { 'content-type': type! }, body: body! })).status);
  }
  assert.deepEqual(statuses, [400, 415, 413]);
  assert.equal(seen.length, 3, 'each refusal reached the error listener');
  assert.deepEqual(
    seen.filter((s) => s.includes('CANARY')),
    [],
    'no error quotes the body or the Content-Type',
  );
});
