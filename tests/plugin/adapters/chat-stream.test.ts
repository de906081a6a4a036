/**
 * Each adapter's chat stream for the host's own route (koaSse, expressSse, webSse on Hono): events reach
 * the client as they are sent, before the run ends, and a client that leaves aborts the run's signal so
 * its work stops. Real frameworks over loopback.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import express from 'express';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import type { SseSink } from '../../../plugin/index.js';
import { koaSse } from '../../../plugin/adapters/koa.js';
import { expressSse } from '../../../plugin/adapters/express.js';
import { webSse } from '../../../plugin/adapters/hono.js';

const kit = { sseOptions: { heartbeatMs: 0 } };

/** A route that sends one event, then waits until its client leaves, and reports the abort. */
interface Chat {
  run(sse: SseSink): Promise<void>;
  aborted: Promise<void>;
}
function chat(): Chat {
  let aborted!: () => void;
  return {
    aborted: new Promise<void>((resolve) => (aborted = resolve)),
    async run(sse) {
      sse.send('message_delta', { text: 'first' });
      await new Promise<void>((resolve) => sse.signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted();
    },
  };
}

const HOSTS: Array<[string, (c: Chat) => RequestListener]> = [
  [
    'koa',
    (c) => {
      const app = new Koa();
      app.use(async (ctx) => c.run(koaSse(kit, ctx)));
      return app.callback();
    },
  ],
  [
    'express',
    (c) => {
      const app = express();
      app.post('/chat', (req, res) => void c.run(expressSse(kit, req, res)));
      return app;
    },
  ],
  [
    'hono',
    (c) => {
      const app = new Hono();
      app.post('/chat', () => {
        const { sink, response } = webSse(kit);
        void c.run(sink);
        return response;
      });
      return getRequestListener(app.fetch);
    },
  ],
];

for (const [name, make] of HOSTS) {
  describe(`${name} chat stream`, () => {
    it('delivers an event before the run ends, with the SSE headers, and a client that leaves aborts the run', async () => {
      const c = chat();
      const server = createServer(make(c));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const first = await new Promise<{ type: string; cache: string; text: string; leave(): void }>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/chat', method: 'POST' }, (res) => {
            res.setEncoding('utf8');
            res.once('data', (text: string) =>
              resolve({
                type: String(res.headers['content-type']),
                cache: String(res.headers['cache-control']),
                text,
                leave: () => req.destroy(),
              }),
            );
          });
          req.on('error', reject);
          req.end();
        });
        assert.match(first.type, /^text\/event-stream/);
        assert.equal(first.cache, 'no-cache, no-transform');
        assert.equal(first.text, 'retry: 1000\n\nevent: message_delta\ndata: {"text":"first"}\n\n');
        first.leave();
        await c.aborted; // the test's own timeout bounds this wait
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
}
