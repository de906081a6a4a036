/**
 * Contract §12 end to end in Chromium on the chat runtime: the demo's tools that need approval, its scripted
 * assistant's deploy topic, and the approval card in the real page, every row (approval-core and
 * approval-more). Most cases share one demo server (helpers/shared-demo.ts); expiry starts its own.
 */
import { after } from 'node:test';
import { closeSuiteBrowser } from './helpers/acceptance-case.js';
import { closeSharedDemos } from './helpers/shared-demo.js';
import './cases/approval-core.js';
import './cases/approval-more.js';

after(closeSuiteBrowser);
after(closeSharedDemos);
