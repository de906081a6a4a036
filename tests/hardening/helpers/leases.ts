/**
 * Waiting for the session leases that killed processes held to lapse, read from the store (the lease in
 * the run state, its process's heartbeat): an event rather than a guess at the TTL.
 */
import assert from 'node:assert/strict';
import { openStore } from '../../../plugin/index.js';
import type { RunState } from '../../../plugin/loop/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once no session in `sessionIds` has a lease left by a killed process that still holds; fails
 * after `patienceMs`, or at once for a session with no run state (never run, or looked for in the wrong
 * place: nothing to wait for would pass unseen). A paused run holds no lease: its pause let it go in the
 * same write.
 */
export async function leasesLapsed(storeUrl: string, namespace: string, sessionIds: readonly string[], patienceMs: number): Promise<void> {
  const store = await openStore(storeUrl, { namespace });
  try {
    const deadline = Date.now() + patienceMs;
    for (;;) {
      const held: string[] = [];
      for (const id of sessionIds) {
        // The session's id places its run state (in its slot on Redis Cluster); without it nothing is found.
        const state = await store.getState<RunState>(`run:${id}`, { sessionId: id });
        assert.ok(state, `no run state for session ${id}`);
        const lease = state.value.lease;
        if (!lease) continue;
        const beat = await store.getState<{ until: number; owners: string[] }>(`instance:${lease.instance}`);
        const beating = beat && beat.value.until > Date.now() && beat.value.owners.includes(lease.owner);
        if (lease.until > Date.now() || beating) held.push(id);
      }
      if (held.length === 0) return;
      assert.ok(Date.now() < deadline, `leases still held ${patienceMs} ms later: ${held.join(', ')}`);
      await sleep(100);
    }
  } finally {
    await store.close();
  }
}
