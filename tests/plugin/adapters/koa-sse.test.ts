/** The chat stream writer (docs/protocol.md §3) over real HTTP: headers, framing, heartbeat, disconnect. */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import { formatEvent, type SseSink, type SseTimers, type OpenSseOptions } from '../../../plugin/index.js';
import { koaSse } from '../../../plugin/adapters/koa.js';
import { parseSse } from '../harness.js';

interface Served {
  url: string;
  server: Server;
  sinks: SseSink[];
  errors: unknown[];
}

let served: Served | undefined;
afterEach(async () => {
  if (!served) return;
  served.server.closeAllConnections();
  await new Promise((r) => served!.server.close(r));
  served = undefined;
});

async function serve(
  handler: (sink: SseSink, ctx: Koa.Context) => void | Promise<void>,
  opts: OpenSseOptions = {},
  pre: Koa.Middleware[] = [],
): Promise<Served> {
  const app = new Koa();
  const sinks: SseSink[] = [];
  const errors: unknown[] = [];
  app.silent = true;
  app.on('error', (err) => errors.push(err));
  for (const mw of pre) app.use(mw);
  app.use(async (ctx) => {
    const sink = koaSse({ sseOptions: {} }, ctx, opts);
    sinks.push(sink);
    await handler(sink, ctx);
  });
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  served = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, sinks, errors };
  return served;
}

/** Reads the body until `until(text)` holds, then returns what arrived (the stream may stay open). */
async function readUntil(res: Response, until: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

const waitFor = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('openSse', () => {
  it('sends the contract headers and no compression, even behind a gzip middleware', async () => {
    // A body-wrapping compressor like koa-compress: gzips whatever ctx.body holds after the route ran.
    const gzip: Koa.Middleware = async (ctx, next) => {
      await next();
      if (ctx.body !== undefined && ctx.body !== null) {
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = gzipSync(Buffer.from(String(ctx.body)));
      }
    };
    const { url } = await serve(
      (sink) => {
        sink.send('message_delta', { text: 'hello' });
        sink.send('done', { reason: 'completed' });
      },
      {},
      [gzip],
    );
    const res = await fetch(url, { headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    assert.equal(res.headers.get('connection'), 'keep-alive');
    assert.equal(res.headers.get('content-encoding'), null);
    assert.equal(res.headers.get('content-length'), null);
    const text = await res.text();
    assert.equal(text, 'retry: 1000\n\nevent: message_delta\ndata: {"text":"hello"}\n\nevent: done\ndata: {"reason":"completed"}\n\n');
  });

  it('keeps each event one event: CR, LF and CRLF inside ids and text stay escaped on one data line', async () => {
    const nasty = 'a\nb\rc\r\nd\u2028e\n\nevent: done\ndata: {}';
    const { url } = await serve((sink) => {
      sink.send('tool_result', { toolCallId: nasty, name: 'x\ny', content: nasty, isError: false });
      sink.comment('multi\nline\rcomment');
      sink.send('done', { reason: 'completed' });
    });
    const text = await (await fetch(url)).text();
    const { frames, comments } = parseSse(text);
    assert.deepEqual(
      frames.map((f) => f.event),
      ['tool_result', 'done'],
    );
    assert.deepEqual(frames[0]!.data, { toolCallId: nasty, name: 'x\ny', content: nasty, isError: false });
    assert.deepEqual(comments, ['multi line comment']);
    for (const block of text.split('\n\n').filter(Boolean)) assert.equal(block.includes('\r'), false);
  });

  it('formatEvent cannot be split by an event name with a newline', () => {
    assert.equal(formatEvent('x\ndata: injected', { a: 1 }), 'event: x data: injected\ndata: {"a":1}\n\n');
  });

  it('writes a ": ping" heartbeat comment every heartbeatMs', async () => {
    const { url } = await serve(() => new Promise(() => {}), { heartbeatMs: 10 });
    const text = await readUntil(await fetch(url), (t) => (t.match(/^: ping$/gm) ?? []).length >= 3);
    assert.ok((text.match(/^: ping\n\n/gm) ?? []).length >= 3, text);
  });

  it('a client disconnect aborts the signal, clears the heartbeat timer, and later writes are dropped quietly', async () => {
    const active = new Set<unknown>();
    const timers: SseTimers = {
      setInterval(fn, ms) {
        const h = setInterval(fn, ms);
        active.add(h);
        return h;
      },
      clearInterval(h) {
        clearInterval(h as NodeJS.Timeout);
        active.delete(h);
      },
    };
    const s = await serve(() => new Promise(() => {}), { heartbeatMs: 5, timers });
    const controller = new AbortController();
    const res = await fetch(s.url, { signal: controller.signal });
    await readUntil(res, (t) => t.includes(': ping'));
    assert.equal(active.size, 1);
    controller.abort();
    await waitFor(() => s.sinks[0]!.signal.aborted);
    const sink = s.sinks[0]!;
    assert.equal(active.size, 0, 'heartbeat cleared');
    assert.equal(sink.closed, true);
    for (let i = 0; i < 20; i++) sink.send('message_delta', { text: 'into the void' });
    sink.end();
    sink.end();
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(s.errors, []);
  });

  it('done is the last event: it ends the stream and stops the heartbeat; later sends are dropped', async () => {
    const s = await serve(
      (sink) => {
        sink.send('done', { reason: 'paused' });
        sink.send('message_delta', { text: 'after done' });
      },
      { heartbeatMs: 5 },
    );
    const text = await (await fetch(s.url)).text();
    assert.equal(text, 'retry: 1000\n\nevent: done\ndata: {"reason":"paused"}\n\n');
    assert.equal(s.sinks[0]!.signal.aborted, true);
  });

  it('heartbeatMs 0 turns the heartbeat off', async () => {
    let started = 0;
    const timers: SseTimers = { setInterval: () => ++started, clearInterval: () => {} };
    const s = await serve((sink) => sink.end(), { heartbeatMs: 0, timers });
    await (await fetch(s.url)).text();
    assert.equal(started, 0);
  });
});
