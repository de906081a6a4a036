/**
 * One demo server (a child process, on a SQLite file of its own, persistent host) and one model for the cases
 * of a test file that can share them, since starting a demo server is what a case costs most. The model is
 * the demo's own scripted assistant (demo/scripted-model/), answering from what each request holds, so any
 * number of sessions run on it one after the other; its requests are recorded as a test model's are. Each
 * case keeps its own sessions, browser context and evidence (`runCase(name, { shared }, …)`).
 */
import { createAssistant } from '../../../demo/scripted-model/index.js';
import {
  startScriptedModel,
  type ChatRequestBody,
  type ScriptedModel,
  type ScriptedTurn,
  type TurnScript,
} from '../../helpers/scripted-model.js';
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
    if (d) await stopSharedDemo(d);
  }
}

/**
 * A demo server on `storeUrl` (persistent host) for the cases that script the model themselves (cases/single-choice.ts
 * and the like), one after the other: its one model answers each request with the next turn of the case now
 * running (`caseModel`), so each case sees its own turns and requests as on a model of its own. The caller stops
 * it (`stopSharedDemo`).
 */
export async function startCaseScriptedDemo(storeUrl: string): Promise<SharedDemo> {
  const tmp = await makeTempDir('ask-user-e2e-shared-');
  let playing: ((body: ChatRequestBody) => ScriptedTurn) | undefined;
  const model = await startScriptedModel({
    fallback: (body) => playing?.(body) ?? { text: '(e2e: the model was called while no case was running)' },
  });
  try {
    const server = await startDemoProcess({ baseURL: model.baseURL, store: storeUrl, hostMode: 'persistent' });
    await assertDemoVariant(server).catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    const caseModel = (turns: TurnScript[], fallback: TurnScript): ScriptedModel => {
      const first = model.requests.length;
      const queue = [...turns];
      const play = (body: ChatRequestBody): ScriptedTurn => {
        const next = queue.shift() ?? fallback;
        return typeof next === 'function' ? next(body) : next;
      };
      playing = play;
      return {
        baseURL: model.baseURL,
        get requests() {
          return model.requests.slice(first);
        },
        enqueue: (...more) => void queue.push(...more),
        get remaining() {
          return queue.length;
        },
        waitForRequests: (count) => model.waitForRequests(first + count),
        close: async () => {
          if (playing === play) playing = undefined;
        },
      };
    };
    return { model, server, storeUrl, tmp, caseModel };
  } catch (error) {
    await model.close();
    await tmp.remove();
    throw error;
  }
}

/** Stops a shared demo's server and model and removes its temp dir. */
export async function stopSharedDemo(demo: SharedDemo): Promise<void> {
  await demo.server.stop().catch(() => {});
  await demo.model.close().catch(() => {});
  await demo.tmp.remove().catch(() => {});
}
