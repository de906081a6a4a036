/** Acceptance rows 1–7 with the demo served by Express (the full suite runs on Koa in acceptance.test.ts). */
import './servers/use-express.js';
import './servers/acceptance-rows.js';
