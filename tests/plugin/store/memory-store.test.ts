import { createKeyedStore } from '../../../plugin/store/keyed-store.js';
import { createMemoryBackend } from '../../../plugin/store/memory-backend.js';
import { backendContract } from './backend-contract.js';
import { storeContract } from './store-contract.js';

// One Map plays the shared backend, so two stores with different namespaces can be compared on it.
const map = new Map<string, string>();
storeContract('memory', async (options) => createKeyedStore(createMemoryBackend({ map }), options));
backendContract('memory', async () => createMemoryBackend());
