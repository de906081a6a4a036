/**
 * Taking and letting go of a session's lease inside its AI SDK run state: the lease is a field of the run
 * (plugin/loop/run-lease.ts), so taking it is a compare-and-set of the run itself, and a busy session is
 * waited on for a bounded time.
 */
import { SessionBusyError, type Hold, type RunLeases } from '../loop/run-lease.js';
import { StateConflictError } from '../loop/run-state.js';
import { emptyAiRun, type AiRunState, type AiRunStates } from './ai-run-state.js';

export function sessionLease(states: AiRunStates, leases: RunLeases, onError: (err: unknown) => void) {
  /** Take the lease in the run state; `prepare` may change the run in the same write. Busy after `waitMs`. */
  async function acquire(
    hold: Hold,
    waitMs: number,
    prepare?: (current: AiRunState | undefined) => AiRunState | undefined,
  ): Promise<{ state: AiRunState; prepared: boolean }> {
    const { sessionId } = hold;
    const deadline = Date.now() + waitMs;
    let entry = await states.entry(sessionId);
    let fresh = false;
    for (let lostSwaps = 0; lostSwaps < 25;) {
      const current = entry?.value;
      if (current?.lease && current.lease.owner !== hold.lease.owner && (await leases.holds(current.lease))) {
        // Busy is only concluded on a fresh read; then waited out in small steps.
        if (fresh && Date.now() >= deadline) throw new SessionBusyError(sessionId);
        if (fresh) await new Promise((r) => setTimeout(r, 40));
      } else {
        const prepared = prepare?.(current);
        const base = prepared ?? current ?? emptyAiRun(sessionId);
        const written = await states.put(sessionId, entry, { ...base, lease: hold.lease });
        if (written) return { state: written, prepared: prepared !== undefined };
        lostSwaps++;
      }
      entry = await states.read(sessionId);
      fresh = true;
    }
    throw new StateConflictError(`run state of session ${JSON.stringify(sessionId)} kept changing while taking its lease; retry later`);
  }

  /** A lease the run's last write did not let go (a failure on the way) is cleared now, if still ours. */
  async function letGo(hold: Hold): Promise<void> {
    leases.release(hold);
    if (hold.lost || hold.settled) return;
    await states
      .update(hold.sessionId, (cur) => (cur?.lease?.owner === hold.lease.owner ? { ...cur, lease: undefined } : undefined))
      .catch(onError);
  }

  return { acquire, letGo };
}
