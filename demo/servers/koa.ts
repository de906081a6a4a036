/** The demo on Koa: the kit's routes through `koaRoutes`, its chat through `koaChat`. */
import Koa, { type ParameterizedContext } from 'koa';
import { koaChat, koaRoutes, readJsonBody } from 'ask-user-kit/plugin/koa';
import { createDemoCore, type DemoAppOptions } from '../demo-core.js';
import { OWNER_COOKIE, ownerCookieOptions, requestToken } from '../session-owners.js';
import { traceStreamOf } from '../trace.js';
import type { DemoApp } from './demo-app.js';

const tokenOf = requestToken<ParameterizedContext>(
  (ctx) => ctx.cookies.get(OWNER_COOKIE),
  (ctx, token) => {
    const { maxAgeSeconds, ...cookie } = ownerCookieOptions(ctx.secure);
    ctx.cookies.set(OWNER_COOKIE, token, { ...cookie, maxAge: maxAgeSeconds * 1000, overwrite: true });
  },
);

export async function koaDemo(options: DemoAppOptions): Promise<DemoApp> {
  const core = await createDemoCore<ParameterizedContext>(options, tokenOf);
  const { kit, trace } = core;
  const app = new Koa();
  app.on('error', (err) => console.error('[demo]', err));
  if (trace) {
    app.use(async (ctx, next) => {
      const stream = traceStreamOf(ctx.method, ctx.path);
      if (stream) trace.tapResponse(ctx.res, stream, () => (ctx.request as { body?: { sessionId?: unknown } }).body?.sessionId);
      await next();
    });
  }
  // The kit's chat: the cross-site rule, the body, the owner (authorize sets the owner cookie on first use).
  const chat = koaChat(kit);
  app.use(async function demoRoutes(ctx, next) {
    if (ctx.path === '/api/chat') return chat(ctx, next);
    if (ctx.method === 'GET' && (ctx.path === '/api/session' || ctx.path === '/api/trace')) {
      const view = await core.view(ctx.path, ctx.query.sessionId, tokenOf(ctx));
      ctx.set('Cache-Control', 'no-store');
      ctx.status = view.status;
      ctx.body = view.body;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/api/health') {
      ctx.body = core.health().body;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/api/features') {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = core.features().body;
      return;
    }
    if (ctx.method === 'POST' && ctx.path === '/api/answer-link') {
      const link = await core.answerLink(
        {
          origin: ctx.get('origin') || undefined,
          fetchSite: ctx.get('sec-fetch-site') || undefined,
          ownOrigin: `${ctx.protocol}://${ctx.host}`,
          readJson: () => readJsonBody(ctx),
        },
        () => tokenOf(ctx),
      );
      ctx.set('Cache-Control', 'no-store');
      ctx.status = link.status;
      ctx.body = link.body;
      return;
    }
    await next();
  });
  app.use(koaRoutes(kit));
  app.use(async (ctx, next) => {
    const file = await core.file(ctx.method, ctx.path);
    if (!file) return next();
    ctx.status = file.status;
    ctx.set(file.headers);
    ctx.body = file.body;
  });
  return { server: 'koa', listener: app.callback(), kit, loop: core.loop, trace, close: core.close };
}
