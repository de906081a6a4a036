/**
 * The design document's acceptance rows (docs/protocol.md, Acceptance, rows 1–7), imported by one test
 * file per framework so each runs them against the demo served by that framework (ASK_USER_SERVER, set
 * by the importing file before this module loads, reaches every demo child process).
 */
import { after } from 'node:test';
import { closeSuiteBrowser } from '../helpers/acceptance-case.js';
import '../cases/single-choice.js';
import '../cases/multiple-custom.js';
import '../cases/cancel.js';
import '../cases/duplicate-submission.js';
import '../cases/cross-session.js';
import '../cases/page-refresh.js';
import '../cases/service-restart.js';

after(closeSuiteBrowser);
