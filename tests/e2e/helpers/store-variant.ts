/**
 * The store a test file runs the acceptance cases on instead of SQLite (contract §14's stores): set by
 * tests/e2e/stores/on-store.ts before the cases load, read by `runCase` for every case that names no store of
 * its own. Such a case runs on the file's one demo server on that store when it needs no server of its own,
 * or starts its servers on a store of its own (a fresh database where the store has them) when it does (a
 * restart, another host mode). Every demo server on the store is checked to say so in `GET /api/health`.
 */
import type { SharedDemo } from './acceptance-case.js';
import type { DemoProcess } from './demo-process.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';

export interface StoreVariant {
  /** What the demo's `GET /api/health` names the store (`store`), and the suffix of each case's evidence folder. */
  readonly kind: string;
  /** The store's name in test titles, e.g. `PostgreSQL`. */
  readonly label: string;
  /** The demo server the cases that need none of their own run on, one after the other; started on first use. */
  sharedDemo(): Promise<SharedDemo>;
  /** The store URL for a case that starts its own servers. */
  caseStore(caseName: string): Promise<string>;
}

let current: StoreVariant | undefined;

/** This test process's store variant, if its test file set one. */
export const storeVariant = (): StoreVariant | undefined => current;

export function setStoreVariant(variant: StoreVariant): void {
  if (current) throw new Error(`this test process already runs its cases on ${current.kind}`);
  current = variant;
}

/** Fails unless `server` says it keeps its state in a store of `kind`. */
export async function assertDemoStore(server: DemoProcess, kind: string): Promise<void> {
  const health = (await (await fetch(`${server.url}/api/health`)).json()) as { store?: string };
  if (health.store !== kind) throw new Error(`the demo server's store is ${health.store}, not ${kind}`);
}

/** A store URL as the notes keep it: the store's own label (no password; a cluster's list of hosts reads too). */
export function storeLabel(url: string): string {
  const target = parseStoreUrl(url);
  return 'label' in target ? target.label : url;
}
