/**
 * The session lease (plugin/loop/session-fence.ts) released while its own renewal is in flight: the
 * renewal reads version v1, the release reads v1, the renewal writes v2, the release deletes "if v1" —
 * and fails, leaving the lease held by nobody until it lapses (15 s by default). Every message and
 * continue of that session is refused as `session_busy` meanwhile. The interleaving is forced with a
 * store proxy that holds the renewal's write until the release's delete arrives; it happened by itself
 * in crash-points.test.ts (the follow-up message after a completed continue got session_busy).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type PendingStore } from '../../plugin/index.js';
import { SessionFence } from '../../plugin/loop/session-fence.js';

/** Holds a renewal's conditional lease write until a delete of the lease comes, then lets it land first. */
function renewalBeforeDelete(inner: PendingStore) {
  let heldWrite: { go: () => void; done: Promise<unknown> } | undefined;
  let sawRenewal!: () => void;
  const renewal = new Promise<void>((r) => (sawRenewal = r));
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (p === 'putState') {
        return (key: string, v: unknown, options?: { ifVersion?: string | null }) => {
          if (!key.startsWith('lease:') || typeof options?.ifVersion !== 'string' || heldWrite) return call(key, v, options);
          let go!: () => void;
          const gate = new Promise<void>((r) => (go = r));
          const done = gate.then(() => call(key, v, options));
          heldWrite = { go, done };
          sawRenewal();
          return done;
        };
      }
      if (p === 'deleteState') {
        return async (key: string, version?: string) => {
          if (key.startsWith('lease:') && heldWrite) {
            heldWrite.go();
            await heldWrite.done;
          }
          return call(key, version);
        };
      }
      return call;
    },
  });
  return { store, renewal };
}

/** Renewed after 100 ms, lapsing only after 60 s: far from any scheduler delay on a loaded machine. */
const LONG_LEASE_QUICK_RENEWAL = { ttlMs: 60_000, renewEveryMs: 100 };

describe('session lease release racing its renewal', () => {
  it('leaves the session free: the next acquire succeeds at once', async () => {
    const inner = await openStore('memory');
    const { store, renewal } = renewalBeforeDelete(inner);
    // A renewal soon, a lease that cannot lapse meanwhile however slow the machine: the test waits for
    // the renewal itself (an event), and no wall-clock expiry can race the interleaving it forces.
    const fence = new SessionFence(store, LONG_LEASE_QUICK_RENEWAL);
    // The renewal timer is unref'd; keep the process up while the test waits for it.
    const keepAlive = setInterval(() => undefined, 1000);
    try {
      const lease = await fence.acquire('s');
      await renewal; // the first renewal has read the lease and is about to write it
      await lease.release();
      assert.equal(await fence.isHeld('s'), false, 'a released lease is not held');
      const next = await fence.acquire('s', 0);
      await next.release();
    } finally {
      clearInterval(keepAlive);
      await inner.close();
    }
  });
});

describe('session lease park racing its renewal', () => {
  it('the park survives: a renewal that read the same version does not drop parkedOn', async () => {
    const inner = await openStore('memory');
    let held: { go: () => void; done: Promise<unknown> } | undefined;
    let sawRenewal!: () => void;
    const renewal = new Promise<void>((r) => (sawRenewal = r));
    let parking = false;
    // Holds the first renewal write (no parkedOn) until the park's write is sent, then lands it first.
    const store = new Proxy(inner, {
      get(target, p, receiver) {
        const value = Reflect.get(target, p, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (p !== 'putState') return call;
        return async (key: string, v: { parkedOn?: string }, options?: { ifVersion?: string | null }) => {
          if (!key.startsWith('lease:') || typeof options?.ifVersion !== 'string') return call(key, v, options);
          if (!held && !v.parkedOn && !parking) {
            let go!: () => void;
            const gate = new Promise<void>((r) => (go = r));
            held = { go, done: gate.then(() => call(key, v, options)) };
            sawRenewal();
            return held.done;
          }
          if (v.parkedOn && held) {
            held.go();
            await held.done;
          }
          return call(key, v, options);
        };
      },
    });
    // Not a short TTL: a park arriving after the lease's store entry expired would find no lease to park.
    const fence = new SessionFence(store, LONG_LEASE_QUICK_RENEWAL);
    const keepAlive = setInterval(() => undefined, 1000);
    try {
      const lease = await fence.acquire('s');
      await renewal; // the renewal has read the lease and waits to write
      parking = true;
      await lease.park('ask_parked_question_id_0000');
      const stored = await inner.getState<{ parkedOn?: string }>(fence.key('s'));
      assert.equal(stored?.value.parkedOn, 'ask_parked_question_id_0000', 'the lease says it is parked');
      await lease.release();
    } finally {
      clearInterval(keepAlive);
      await inner.close();
    }
  });
});
