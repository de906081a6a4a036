/**
 * Acceptance rows 1–7 (servers/acceptance-rows.ts) and two demo instances sharing the store
 * (cases/two-instances.ts), on a store other than SQLite: one test file per store calls `acceptanceOnStore`
 * once, e.g. acceptance-postgres.test.ts. Each file is a process of its own, as each framework's is.
 *
 * The store's server is started once for the file, on first use. The cases that need no server of their own
 * (rows 1–6, and instance A of the two) run one after the other on one demo server on it, each with its own
 * sessions, page, scripted turns and evidence; the restart cases (row 7) start theirs on a store of their own
 * (`fresh`, where the store has databases), else on the file's store beside the shared demo (its file says why
 * that is safe), and restart them on it. Every demo server is checked to say the store's kind in
 * `GET /api/health`. Evidence folders take the kind as suffix: `.evidence/e2e/<case>-<kind>/`.
 */
import { after } from 'node:test';
import type { SharedDemo } from '../helpers/acceptance-case.js';
import { startCaseScriptedDemo, stopSharedDemo } from '../helpers/shared-demo.js';
import { setStoreVariant } from '../helpers/store-variant.js';

export interface StoreUnderTest {
  /** What the demo's `GET /api/health` names the store, e.g. `postgres`. */
  kind: string;
  /** Its name in test titles, e.g. `PostgreSQL`. */
  label: string;
  /** A throwaway server of the store on loopback; `url` is what `ASK_USER_STORE` gets. */
  start(): Promise<{ readonly url: string; stop(): Promise<void> }>;
  /** A store of its own on that server (a new database) for the shared demo and each case that starts its own servers; absent: `url` itself. */
  fresh?(url: string, name: string): Promise<string>;
}

export async function acceptanceOnStore(store: StoreUnderTest): Promise<void> {
  let server: ReturnType<StoreUnderTest['start']> | undefined;
  let demo: Promise<SharedDemo> | undefined;
  const storeFor = async (name: string) => {
    const { url } = await (server ??= store.start());
    return store.fresh ? store.fresh(url, name) : url;
  };
  setStoreVariant({
    kind: store.kind,
    label: store.label,
    caseStore: storeFor,
    // runCase checks at each case's start that the shared demo says it is on the store.
    sharedDemo: () => (demo ??= storeFor('shared').then(startCaseScriptedDemo)),
  });
  after(async () => {
    const shared = await demo?.catch(() => undefined);
    if (shared) await stopSharedDemo(shared);
    await (await server?.catch(() => undefined))?.stop();
  });
  // Loaded once the store is set: the cases read it as they register (service-restart.ts).
  await import('../servers/acceptance-rows.js');
  const { twoInstances } = await import('../cases/two-instances.js');
  twoInstances({ name: 'two-instances', label: store.label });
}
