/**
 * The acceptance suite of docs/protocol.md, Acceptance, run end to end: Chromium drives the chat page of the real
 * demo server (a child process) whose model is a scripted OpenAI-compatible server started per case. One
 * file, so the whole suite shares one browser; each case has its own context, server, store and evidence
 * folder under .evidence/e2e/.
 */
import { after } from 'node:test';
import { closeSuiteBrowser } from './helpers/acceptance-case.js';
import './cases/single-choice.js';
import './cases/multiple-custom.js';
import './cases/cancel.js';
import './cases/duplicate-submission.js';
import './cases/cross-session.js';
import './cases/page-refresh.js';
import './cases/service-restart.js';
import './cases/expiry.js';
import './cases/supersede.js';
import './cases/every-mode.js';
import './cases/keyboard-only.js';
import './cases/two-instances-redis.js';

after(closeSuiteBrowser);
