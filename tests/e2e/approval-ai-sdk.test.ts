/** Contract §12's core rows (one call approved, approve + deny, an edit) with the demo on the kit's Vercel AI SDK runtime. */
import './servers/use-ai-sdk.js';
import { after } from 'node:test';
import { closeSuiteBrowser } from './helpers/acceptance-case.js';
import { closeSharedDemos } from './helpers/shared-demo.js';
import './cases/approval-core.js';

after(closeSuiteBrowser);
after(closeSharedDemos);
