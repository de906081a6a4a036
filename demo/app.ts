/**
 * The demo agent server: the plugin's routes, `POST /api/chat` on the plugin's agent loop, a developer
 * trace, and the built page — everything `demo/server.ts` serves on one port, on the framework
 * `options.server` names (demo/servers/). Tests build it in-process on their own store and model.
 */
import type { DemoAppOptions, DemoServer } from './demo-core.js';
import type { DemoApp } from './servers/demo-app.js';
import { koaDemo } from './servers/koa.js';
import { expressDemo } from './servers/express.js';
import { honoDemo } from './servers/hono.js';

export { DEMO_SERVERS, DEMO_SYSTEM_PROMPT, type DemoAppOptions, type DemoServer } from './demo-core.js';
export type { DemoApp } from './servers/demo-app.js';

const SERVERS: Record<DemoServer, (options: DemoAppOptions) => Promise<DemoApp>> = { koa: koaDemo, express: expressDemo, hono: honoDemo };

export function createDemoApp(options: DemoAppOptions): Promise<DemoApp> {
  return SERVERS[options.server ?? 'koa'](options);
}
