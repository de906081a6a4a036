/**
 * The demo on Hono, served on Node by @hono/node-server: the kit's routes through `honoRoutes` and its chat
 * through `honoChat` (on the Fetch adapter's web `Request`/`Response`).
 */
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { honoChat, honoRoutes } from 'ask-user-kit/plugin/hono';
import { readRequestJson } from 'ask-user-kit/plugin/fetch';
import { createDemoCore, type DemoAppOptions } from '../demo-core.js';
import { OWNER_COOKIE, ownerCookieOptions, requestToken } from '../session-owners.js';
import { traceStreamOf } from '../trace.js';
import type { DemoApp } from './demo-app.js';

type Env = { Bindings: HttpBindings };

const tokenOf = requestToken<Context>(
  (c) => getCookie(c, OWNER_COOKIE),
  (c, token) => {
    const { maxAgeSeconds, sameSite, ...cookie } = ownerCookieOptions(new URL(c.req.url).protocol === 'https:');
    setCookie(c, OWNER_COOKIE, token, { ...cookie, sameSite: sameSite === 'lax' ? 'Lax' : 'Strict', maxAge: maxAgeSeconds });
  },
);

const json = (c: Context, status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { ...Object.fromEntries(c.res.headers), ...headers, 'Content-Type': 'application/json; charset=utf-8' },
  });

export async function honoDemo(options: DemoAppOptions): Promise<DemoApp> {
  const core = await createDemoCore<Context>(options, tokenOf);
  const { kit, trace } = core;
  const app = new Hono<Env>();
  app.onError((err, c) => {
    console.error('[demo]', err);
    return c.json({ error: { code: 'internal_error', message: 'The server failed; see its log.' } }, 500);
  });
  if (trace) {
    app.use(async (c, next) => {
      const stream = traceStreamOf(c.req.method, c.req.path);
      if (stream) {
        // The body is read by the route later; a clone tells the trace which session it is.
        const body = (await c.req.raw
          .clone()
          .json()
          .catch(() => undefined)) as { sessionId?: unknown } | undefined;
        trace.tapResponse(c.env.outgoing, stream, () => body?.sessionId);
      }
      await next();
    });
  }
  // The kit's chat: the cross-site rule, the body, the owner (authorize sets the owner cookie on first use).
  app.post('/api/chat', honoChat(kit));
  for (const path of ['/api/session', '/api/trace'] as const) {
    app.get(path, async (c) => {
      const view = await core.view(path, c.req.query('sessionId'), tokenOf(c));
      return json(c, view.status, view.body, { 'Cache-Control': 'no-store' });
    });
  }
  app.get('/api/health', (c) => c.json(core.health().body as Record<string, unknown>));
  app.get('/api/features', (c) => json(c, 200, core.features().body, { 'Cache-Control': 'no-store' }));
  app.post('/api/answer-link', async (c) => {
    const link = await core.answerLink(
      {
        origin: c.req.header('origin'),
        fetchSite: c.req.header('sec-fetch-site'),
        ownOrigin: new URL(c.req.url).origin,
        readJson: () => readRequestJson(c.req.raw),
      },
      () => tokenOf(c),
    );
    return json(c, link.status, link.body, { 'Cache-Control': 'no-store' });
  });
  app.use(honoRoutes(kit));
  app.use(async (c, next) => {
    const file = await core.file(c.req.method, c.req.path);
    if (!file) return next();
    return new Response(typeof file.body === 'string' ? file.body : new Uint8Array(file.body), {
      status: file.status,
      headers: file.headers,
    });
  });
  return { server: 'hono', listener: getRequestListener(app.fetch), kit, loop: core.loop, trace, close: core.close };
}
