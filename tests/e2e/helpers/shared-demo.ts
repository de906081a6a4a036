/**
 * One demo server (a child process, on a SQLite file of its own, persistent host) and one model for the cases
 * of a test file that can share them, since starting a demo server is what a case costs most. The model is
 * the demo's own scripted assistant (demo/scripted-model/), answering from what each request holds, so any
 * number of sessions run on it one after the other; its requests are recorded as a test model's are. Each
 * case keeps its own sessions, browser context and evidence (`runCase(name, { shared }, …)`).
 */
import { createAssistant } from '../../../demo/scripted-model/index.js';
import { startScriptedModel } from '../../helpers/scripted-model.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { assertDemoVariant, type SharedDemo } from './acceptance-case.js';
import { startDemoProcess, type DemoProcessOptions } from './demo-process.js';

export interface SharedDemoOptions {
  ttlMs?: number;
  env?: DemoProcessOptions['env'];
}

const started = new Map<string, Promise<SharedDemo>>();

/** The demo assistant as a model: what a demo user gets with no OPENAI_BASE_URL, here recorded for the evidence. */
export const demoAssistant = () => createAssistant({ pieceDelayMs: 0 });

/** The test file's shared demo of these options, started on first use and kept until `closeSharedDemos`. */
export function sharedDemo(options: SharedDemoOptions = {}): Promise<SharedDemo> {
  const key = JSON.stringify(options);
  let demo = started.get(key);
  if (!demo) {
    demo = (async () => {
      const tmp = await makeTempDir('ask-user-e2e-shared-');
      const model = await startScriptedModel({ fallback: demoAssistant() });
      const storeUrl = `sqlite://${tmp.file('ask-user.db')}`;
      const server = await startDemoProcess({
        baseURL: model.baseURL,
        store: storeUrl,
        hostMode: 'persistent',
        ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
        ...(options.env ? { env: options.env } : {}),
      });
      await assertDemoVariant(server);
      return { model, server, storeUrl, tmp };
    })();
    started.set(key, demo);
  }
  return demo;
}

export async function closeSharedDemos(): Promise<void> {
  const all = [...started.values()];
  started.clear();
  for (const demo of all) {
    const d = await demo.catch(() => undefined);
    if (!d) continue;
    await d.server.stop().catch(() => {});
    await d.model.close().catch(() => {});
    await d.tmp.remove().catch(() => {});
  }
}
