/**
 * The agent server most runtime tests need: the kit's routes on Koa and `POST /api/chat` running the
 * kit's runtime on the request's stream, on a loopback port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ParameterizedContext } from 'koa';
import Koa from 'koa';
import type { AskUserKit } from '../../plugin/index.js';
import { koaChat, koaRoutes } from '../../plugin/adapters/koa.js';

export interface KoaChatServer {
  url: string;
  /** POST a JSON body to `path` on the server. */
  post(path: string, body: unknown): Promise<Response>;
  /** Stops the server; the kit is the caller's to close. */
  close(): Promise<void>;
}

export async function serveKoaChat(kit: AskUserKit<ParameterizedContext>): Promise<KoaChatServer> {
  const app = new Koa();
  app.silent = true;
  app.use(koaRoutes(kit));
  const chat = koaChat(kit);
  app.use((ctx, next) => (ctx.path === '/api/chat' ? chat(ctx, next) : next()));
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    post: (path, body) =>
      fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
