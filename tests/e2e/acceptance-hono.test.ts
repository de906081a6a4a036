/** Acceptance rows 1–7 with the demo served by Hono (the full suite runs on Koa in acceptance.test.ts). */
import './servers/use-hono.js';
import './servers/acceptance-rows.js';
