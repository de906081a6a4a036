/** The demo on Express 5: the kit's routes through `expressRoutes`, its chat through `expressChat`. */
import express, { type Request } from 'express';
import { expressChat, expressRoutes, readExpressJson } from 'ask-user-kit/plugin/express';
import { createDemoCore, type DemoAppOptions } from '../demo-core.js';
import { OWNER_COOKIE, ownerCookieOptions, requestToken } from '../session-owners.js';
import { traceStreamOf } from '../trace.js';
import type { DemoApp } from './demo-app.js';

const COOKIE = new RegExp(`(?:^|;\\s*)${OWNER_COOKIE}=([^;]*)`);

const tokenOf = requestToken<Request>(
  (req) => COOKIE.exec(req.headers.cookie ?? '')?.[1],
  (req, token) => {
    const { maxAgeSeconds, ...cookie } = ownerCookieOptions(req.secure);
    req.res!.cookie(OWNER_COOKIE, token, { ...cookie, maxAge: maxAgeSeconds * 1000 });
  },
);

export async function expressDemo(options: DemoAppOptions): Promise<DemoApp> {
  const core = await createDemoCore<Request>(options, tokenOf);
  const { kit, trace } = core;
  const app = express();
  app.disable('x-powered-by');
  if (trace) {
    app.use((req, res, next) => {
      const stream = traceStreamOf(req.method, req.path);
      if (stream) trace.tapResponse(res, stream, () => (req.body as { sessionId?: unknown } | undefined)?.sessionId);
      next();
    });
  }
  // The kit's chat: the cross-site rule, the body, the owner (authorize sets the owner cookie on first use).
  app.post('/api/chat', expressChat(kit));
  for (const path of ['/api/session', '/api/trace'] as const) {
    app.get(path, async (req, res) => {
      const view = await core.view(path, req.query.sessionId, tokenOf(req));
      res.set('Cache-Control', 'no-store').status(view.status).json(view.body);
    });
  }
  app.get('/api/health', (_req, res) => void res.json(core.health().body));
  app.get('/api/features', (_req, res) => void res.set('Cache-Control', 'no-store').json(core.features().body));
  app.post('/api/answer-link', async (req, res) => {
    const link = await core.answerLink(
      {
        origin: req.get('origin'),
        fetchSite: req.get('sec-fetch-site'),
        ownOrigin: `${req.protocol}://${req.get('host') ?? ''}`,
        readJson: () => readExpressJson(req, res),
      },
      () => tokenOf(req),
    );
    res.set('Cache-Control', 'no-store').status(link.status).json(link.body);
  });
  app.use(expressRoutes(kit));
  app.use(async (req, res, next) => {
    const file = await core.file(req.method, req.path);
    if (!file) return next();
    res.status(file.status).set(file.headers).send(file.body);
  });
  app.use((err: unknown, _req: Request, res: express.Response, _next: express.NextFunction) => {
    console.error('[demo]', err);
    if (!res.headersSent) res.status(500).json({ error: { code: 'internal_error', message: 'The server failed; see its log.' } });
  });
  return { server: 'express', listener: app, kit, loop: core.loop, trace, close: core.close };
}
