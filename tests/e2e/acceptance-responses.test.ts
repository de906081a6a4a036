/** Acceptance rows 1–7 with the demo's loop on the OpenAI Responses API (the scripted model serves it too). */
import './servers/use-responses.js';
import './servers/acceptance-rows.js';
