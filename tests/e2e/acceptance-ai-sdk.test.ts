/** Acceptance rows 1–7 with the demo on the kit's Vercel AI SDK runtime (its OpenAI-compatible provider, the scripted model). */
import './servers/use-ai-sdk.js';
import './servers/acceptance-rows.js';
