/**
 * Contract §13 end to end through the demo, on one demo server for the file (helpers/notify-demo.ts: a short
 * ASK_USER_NOTIFY_AFTER_MS, a webhook receiver and a push service of the test's own on loopback, answer
 * links on): the Standard Webhooks notifier (cases/notify-webhook.ts), Web Push with the page's switch and
 * service worker in Chromium (cases/notify-push.ts), and answer links with a second browser
 * (cases/answer-links.ts).
 */
import { after } from 'node:test';
import { closeSuiteBrowser } from './helpers/acceptance-case.js';
import { closeSharedDemos } from './helpers/shared-demo.js';
import { closeNotifyDemo } from './helpers/notify-demo.js';
import './cases/notify-webhook.js';
import './cases/notify-push.js';
import './cases/answer-links.js';

after(closeSuiteBrowser);
after(closeSharedDemos);
after(closeNotifyDemo);
