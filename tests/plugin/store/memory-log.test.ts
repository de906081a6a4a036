import { createMemoryBackend } from '../../../plugin/store/memory-backend.js';
import { logContract } from './log-contract.js';

// One Map plays the shared store: two memory backends on it share one log, as they share their rows.
logContract('memory', async () => {
  const map = new Map<string, string>();
  const one = createMemoryBackend({ map });
  const two = createMemoryBackend({ map });
  return {
    first: one.log!,
    second: two.log!,
    close: async () => {
      await one.close();
      await two.close();
    },
  };
});
