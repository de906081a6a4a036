/**
 * The "host under test" of the route conformance suite (routes.conformance.test.ts): one object per host
 * framework adapter. The suite builds everything it must control itself (store, clock, RunHost, audit
 * sink) and hands it over; the adapter creates the kit, serves the kit's continue and pending routes
 * (and nothing else) on 127.0.0.1:0, and puts the suite's authorize policy and allowed origins wherever
 * that framework's adapter takes them. Adding an adapter to the suite is one more entry in HOSTS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type ParameterizedContext } from 'koa';
import { createAskUserKit, type AskUserKit, type AskUserKitOptions } from '../../../plugin/index.js';
import { koaRoutes } from '../../../plugin/adapters/koa.js';
import express, { type Request as ExpressRequest } from 'express';
import { Hono, type Context as HonoContext } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { expressRoutes } from '../../../plugin/adapters/express.js';
import { honoRoutes } from '../../../plugin/adapters/hono.js';

/** What the suite's authorize policy reads of a request, whatever the framework's request object is. */
export interface CallerView {
  /** A request header by (case-insensitive) name; undefined when absent. */
  header(name: string): string | undefined;
}

/**
 * The suite's authorize policy, framework-neutral: the adapter calls it with a view of the request and the
 * session the request names, and refuses with 403 `forbidden` when it resolves false. It may be async.
 */
export type CallerPolicy = (caller: CallerView, sessionId: string) => boolean | Promise<boolean>;

/** The kit options the suite controls. Required here so every adapter gets the same fixture. */
export type KitUnderTestOptions = Required<
  Pick<AskUserKitOptions, 'store' | 'host' | 'now' | 'logger' | 'ttlMs' | 'heartbeatMs' | 'expiryTimers' | 'prefix'>
> & {
  /** Errors no request is waiting for (a run that failed after the claim); the suite collects them. */
  onError: (err: unknown) => void;
  /** One-card answer links (§13), when a suite turns them on. */
  answerLinks?: AskUserKitOptions['answerLinks'];
  /** Web Push (§13), when a suite turns it on. */
  webPush?: AskUserKitOptions['webPush'];
};

export interface HostStartOptions {
  /** Pass these to the kit unchanged (the store, clock, RunHost and audit sink belong to the suite). */
  kit: KitUnderTestOptions;
  /** Who may act on a session, for continue and pending. */
  authorize: CallerPolicy;
  /** Front-end origins besides the server's own that may POST continue. */
  allowedOrigins?: readonly string[];
}

export interface StartedHost {
  /** Base URL, `http://127.0.0.1:<port>`; the routes live at `${url}${kit.prefix}/…`. */
  url: string;
  /** The kit serving the routes; the suite asks and closes questions through it as a loop would. */
  kit: Pick<AskUserKit, 'intercept' | 'supersede' | 'expireDue' | 'prefix' | 'answerLink'>;
  /** Stop serving (dropping open connections) and close the kit. The suite closes its own store. */
  close(): Promise<void>;
}

export interface HostUnderTest {
  /** 'koa', later 'express', 'hono'. */
  name: string;
  /** Create the kit from `options.kit`, serve its continue and pending routes (and nothing else) on 127.0.0.1:0. */
  start(options: HostStartOptions): Promise<StartedHost>;
}

/** Koa: `koaRoutes(kit)`, with authorize and allowedOrigins given to createAskUserKit. */
export const koaHost: HostUnderTest = {
  name: 'koa',
  async start({ kit: kitOptions, authorize, allowedOrigins = [] }) {
    const kit = createAskUserKit({
      ...kitOptions,
      allowedOrigins,
      authorize: (ctx: ParameterizedContext, sessionId: string) => authorize({ header: (name) => ctx.get(name) || undefined }, sessionId),
    });
    const app = new Koa();
    app.silent = true;
    app.use(koaRoutes(kit));
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      kit,
      async close() {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await kit.close();
      },
    };
  },
};

/** A Node server on 127.0.0.1:0 for `listener`, and how to stop it. */
async function listen(listener: Parameters<typeof createServer>[1], kit: { close(): Promise<void> }) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kit.close();
    },
  };
}

/** Express 5: `expressRoutes(kit)`; authorize receives Express's request. */
export const expressHost: HostUnderTest = {
  name: 'express',
  async start({ kit: kitOptions, authorize, allowedOrigins = [] }) {
    const kit = createAskUserKit<ExpressRequest>({
      ...kitOptions,
      allowedOrigins,
      authorize: (req, sessionId) => authorize({ header: (name) => req.get(name) ?? undefined }, sessionId),
    });
    const app = express();
    app.use(expressRoutes(kit));
    return { kit, ...(await listen(app, kit)) };
  },
};

/** Hono on Node (@hono/node-server): `honoRoutes(kit)`, the Fetch adapter underneath; authorize receives Hono's context. */
export const honoHost: HostUnderTest = {
  name: 'hono',
  async start({ kit: kitOptions, authorize, allowedOrigins = [] }) {
    const kit = createAskUserKit<HonoContext>({
      ...kitOptions,
      allowedOrigins,
      authorize: (c, sessionId) => authorize({ header: (name) => c.req.header(name) }, sessionId),
    });
    const app = new Hono();
    app.use(honoRoutes(kit));
    return { kit, ...(await listen(getRequestListener(app.fetch), kit)) };
  },
};

export const HOSTS: HostUnderTest[] = [koaHost, expressHost, honoHost];
