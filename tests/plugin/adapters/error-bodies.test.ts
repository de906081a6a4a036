/**
 * Errors on a host's own routes reach the client as the contract's JSON body on every adapter
 * (`koaErrors`, `expressErrors`, `honoErrors`, `errorResponse`): an `AskUserError` keeps its status and
 * body, a framework's client error keeps its status with fixed words (a body parser's message can quote
 * the body), anything else is 500 `internal_error`; never a stack trace, a file path or an HTML page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import express from 'express';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { getRequestListener } from '@hono/node-server';
import { AskUserError } from '../../../plugin/index.js';
import { koaErrors } from '../../../plugin/adapters/koa.js';
import { expressErrors } from '../../../plugin/adapters/express.js';
import { honoErrors } from '../../../plugin/adapters/hono.js';
import { errorResponse } from '../../../plugin/adapters/fetch.js';

/** A message and stack no client may see. */
const SECRET = 'db password hunter2 at /srv/app/src/secret-file.ts:12';

/** Each host with three routes: one throwing an AskUserError, one a bug, one a framework client error. */
const HOSTS: Array<{ name: string; listener(logged: unknown[]): RequestListener }> = [
  {
    name: 'koa',
    listener(logged) {
      const app = new Koa();
      app.on('error', (err) => logged.push(err));
      app.use(koaErrors());
      app.use((ctx) => {
        if (ctx.path === '/refused') throw new AskUserError('forbidden', 'Not yours.');
        if (ctx.path === '/bug') throw new Error(SECRET);
        ctx.throw(413, SECRET);
      });
      return app.callback();
    },
  },
  {
    name: 'express',
    listener(logged) {
      const app = express();
      app.get('/refused', () => {
        throw new AskUserError('forbidden', 'Not yours.');
      });
      app.get('/bug', () => {
        throw new Error(SECRET);
      });
      // express.json()'s own error for a body that is not JSON quotes the body in its message.
      app.post('/client', express.json(), (_req, res) => void res.json({}));
      app.use(expressErrors((err) => logged.push(err)));
      return app;
    },
  },
  {
    name: 'hono',
    listener(logged) {
      const app = new Hono();
      app.onError(honoErrors((err) => logged.push(err)));
      app.get('/refused', () => {
        throw new AskUserError('forbidden', 'Not yours.');
      });
      app.get('/bug', () => {
        throw new Error(SECRET);
      });
      app.post('/client', () => {
        throw new HTTPException(413, { message: SECRET });
      });
      return getRequestListener(app.fetch);
    },
  },
  {
    name: 'fetch',
    listener(logged) {
      const log = (err: unknown) => void logged.push(err);
      return getRequestListener(async (request) => {
        const path = new URL(request.url).pathname;
        try {
          if (path === '/refused') throw new AskUserError('forbidden', 'Not yours.');
          if (path === '/bug') throw new Error(SECRET);
          throw Object.assign(new Error(SECRET), { status: 413 });
        } catch (err) {
          return errorResponse(err, log);
        }
      });
    },
  },
];

for (const host of HOSTS) {
  describe(`error bodies on ${host.name}`, () => {
    const logged: unknown[] = [];
    let server: Server;
    let url: string;
    before(async () => {
      server = createServer(host.listener(logged));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(url + path, init);
      const text = await res.text();
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${path}: JSON, not ${res.headers.get('content-type')}`);
      assert.doesNotMatch(text, /hunter2|secret-file|\/srv\/|\bat .+:\d+|<html|<pre/i, `${path}: nothing of the error's words or stack`);
      return { status: res.status, body: JSON.parse(text) as { error: { code: string; message: string } } };
    };

    it("an AskUserError keeps its status and body, and is not logged as the server's failure", async () => {
      const before = logged.length;
      assert.deepEqual(await get('/refused'), { status: 403, body: { error: { code: 'forbidden', message: 'Not yours.' } } });
      assert.equal(logged.length, before);
    });

    it('a bug is 500 internal_error with fixed words, and the error goes to the log', async () => {
      const before = logged.length;
      const res = await get('/bug');
      assert.equal(res.status, 500);
      assert.equal(res.body.error.code, 'internal_error');
      assert.equal(logged.length, before + 1);
      assert.match(String((logged.at(-1) as Error).message), /hunter2/, 'the log has what the client does not');
    });

    it("a framework's client error keeps its status with fixed words", async () => {
      const res = await get('/client', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": hunter2' });
      assert.equal(res.body.error.code, 'invalid_request');
      assert.ok(res.status === 400 || res.status === 413, String(res.status));
    });
  });
}
