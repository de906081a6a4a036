/** The demo on Koa: the kit's routes through `koaRoutes`, the chat stream through `koaSse`. */
import Koa, { type ParameterizedContext } from 'koa';
import { koaRoutes, koaSse, readJsonBody, sameOriginOnly } from '../../plugin/adapters/koa.js';
import { AskUserError } from '../../plugin/core/errors.js';
import { createDemoCore, type DemoAppOptions } from '../demo-core.js';
import { OWNER_COOKIE, ownerCookieOptions, requestToken } from '../session-owners.js';
import { staticFile } from '../static-files.js';
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
  const { kit, trace, staticDir } = core;
  const app = new Koa();
  app.on('error', (err) => console.error('[demo]', err));
  if (trace) {
    app.use(async (ctx, next) => {
      const stream = traceStreamOf(ctx.method, ctx.path);
      if (stream) trace.tapResponse(ctx.res, stream, () => (ctx.request as { body?: { sessionId?: unknown } }).body?.sessionId);
      await next();
    });
  }
  // The demo's own chat route; the kit's continue route applies the same rule itself, and audits it.
  const sameOrigin = sameOriginOnly();
  app.use((ctx, next) => (ctx.path === '/api/chat' ? sameOrigin(ctx, next) : next()));
  app.use(async function demoRoutes(ctx, next) {
    if (ctx.method === 'POST' && ctx.path === '/api/chat') {
      let raw: unknown;
      try {
        raw = await readJsonBody(ctx);
      } catch (err) {
        // The plugin's own answer for a bad body: JSON, 400/413/415, the body never echoed or logged.
        if (!(err instanceof AskUserError)) throw err;
        ctx.status = err.status;
        ctx.body = err.toBody();
        return;
      }
      const input = await core.chatInput(raw, tokenOf(ctx));
      if ('status' in input) {
        ctx.status = input.status;
        ctx.body = input.body;
        return;
      }
      return core.chat(input, koaSse(kit, ctx));
    }
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
    await next();
  });
  app.use(koaRoutes(kit));
  if (staticDir) {
    app.use(async (ctx, next) => {
      const file = await staticFile(staticDir, ctx.method, ctx.path);
      if (!file) return next();
      ctx.status = file.status;
      ctx.set(file.headers);
      ctx.body = file.body;
    });
  }
  return { server: 'koa', listener: app.callback(), kit, loop: core.loop, trace, close: core.close };
}
