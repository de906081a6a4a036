/** Contract §12's core rows (one call approved, approve + deny, an edit) with the demo's loop on the OpenAI Responses API. */
import './servers/use-responses.js';
import { after } from 'node:test';
import { closeSuiteBrowser } from './helpers/acceptance-case.js';
import { closeSharedDemos } from './helpers/shared-demo.js';
import './cases/approval-core.js';

after(closeSuiteBrowser);
after(closeSharedDemos);
