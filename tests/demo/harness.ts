/**
 * The demo app in this process, on a store and a scripted test model the test controls, listening on a
 * free loopback port. Tests talk to it over real HTTP.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import OpenAI, { type ClientOptions } from 'openai';
import { createDemoApp, type DemoApp, type DemoAppOptions } from '../../demo/app.js';
import { memoryAuditLogger, type AuditEntry } from '../../plugin/core/audit.js';
import { openStore } from '../../plugin/store/index.js';
import type { PendingStore } from '../../plugin/store/types.js';
import { startScriptedModel, type ScriptedModel, type TurnScript } from '../helpers/scripted-model.js';

export interface Harness {
  url: string;
  model: ScriptedModel;
  store: PendingStore;
  demo: DemoApp;
  audit: AuditEntry[];
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<Omit<DemoAppOptions, 'store' | 'client' | 'model'>> {
  turns?: TurnScript[];
  /** The model's answer once `turns` are used up. */
  fallback?: TurnScript;
  /** A store to use (kept open on close); default a fresh memory store. */
  store?: PendingStore;
  /** An already running model to use (kept running on close). */
  model?: ScriptedModel;
  /** More options for the test's `openai` client (a logger, …). */
  clientOptions?: ClientOptions;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { turns = [], fallback, store: given, model: givenModel, clientOptions, ...app } = options;
  const model = givenModel ?? (await startScriptedModel({ turns, ...(fallback ? { fallback } : {}) }));
  if (givenModel) givenModel.enqueue(...turns);
  const store = given ?? (await openStore('memory'));
  const audit = memoryAuditLogger();
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: 'test', maxRetries: 0, ...clientOptions });
  const demo = await createDemoApp({ store, client, model: 'scripted-test', audit, heartbeatMs: 0, ...app });
  const server: Server = await new Promise((resolve) => {
    const s = createServer(demo.listener).listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    model,
    store,
    demo,
    audit: audit.entries,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await demo.close();
      if (!given) await store.close();
      if (!givenModel) await model.close();
    },
  };
}

export { askSingle } from '../helpers/ask-calls.js';
