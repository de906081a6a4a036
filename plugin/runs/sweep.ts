/**
 * The sweep: every session listed in the paused-run index (paused-index.ts), a page at a time, gets its
 * half-done work finished: a claimed answer whose ToolResult never got written, an overdue question whose
 * timer died, a run that owes the model an accepted answer. A marker whose run has gone on is dropped.
 *
 * A page costs a few round trips whatever its size: the markers come with the page, their questions in
 * one read, and only a session whose question is no longer simply waiting is looked at closely. Between
 * pages the sweep rests three times as long as the page took, so a sweep over many thousand open
 * questions takes at most a quarter of the process beside live traffic.
 */
import type { InteractionRecord } from '../store/types.js';
import { isPastExpiry } from '../store/types.js';
import type { Listed, PausedIndex } from './paused-index.js';

export interface SweepReport {
  checked: number;
  rolledForward: number;
  expired: number;
  /** Runs stalled on an accepted answer that this sweep continued (their output goes to history). */
  resumed: number;
}

/** What a roll-forward reports, whatever the runtime: the kind, and the record it rolled forward. */
export interface RolledForward {
  kind: 'nothing' | 'pending' | 'needs_expiry' | 'expired' | 'rolled_forward';
  record?: InteractionRecord;
}

/** The sweep over any runtime's runs (`R`: the plugin loop's, the AI SDK adapter's). */
export interface SweepDeps<R> {
  index: PausedIndex;
  states: { get(sessionId: string): Promise<R | undefined> };
  /** The questions of many markers at once. */
  getMany(requestIds: readonly string[]): Promise<Array<InteractionRecord | undefined>>;
  rollForward(sessionId: string): Promise<RolledForward>;
  /** Continue a run stalled on an answer, given its state as just read; false when not ours to do. */
  resumeStalled(sessionId: string, seen: R | undefined): Promise<boolean>;
  /** True while a runner holds the run: it lists the session before it saves a pause. */
  isRunning(run: R | undefined): Promise<boolean>;
  /** A run a sweep must keep listed: paused, or owing the model an accepted answer. */
  needsSweep(run: R | undefined): boolean;
  /** A card still waiting, in time: its notifiers may be due (§13). */
  notifyDue?(record: InteractionRecord): void;
  signal: AbortSignal;
  onError(err: unknown): void;
  now(): number;
}

/** Sessions read per page of the index. */
const PAGE = 200;
/** Rest after a page, as a multiple of the time the page took. */
const REST = 3;

export async function sweepMarkers<R>(deps: SweepDeps<R>): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, rolledForward: 0, expired: 0, resumed: 0 };
  for await (const page of deps.index.pages(PAGE)) {
    const started = Date.now();
    const records = await deps.getMany(page.map((l) => l.marker.requestId));
    for (const [i, listed] of page.entries()) {
      if (deps.signal.aborted) return report;
      report.checked++;
      // Still waiting for its answer, in time: nothing to finish. (A claim or a closing changes the record.)
      const record = records[i];
      if (record?.status === 'pending' && !isPastExpiry(record, deps.now())) {
        deps.notifyDue?.(record);
        continue;
      }
      // One session's failure is logged and the sweep goes on: the others must not starve behind it.
      await sweepSession(deps, listed, report).catch(deps.onError);
    }
    await new Promise((resolve) => setTimeout(resolve, (Date.now() - started) * REST));
  }
  return report;
}

async function sweepSession<R>(deps: SweepDeps<R>, { sessionId, version }: Listed, report: SweepReport): Promise<void> {
  const result = await deps.rollForward(sessionId);
  if (result.kind === 'expired') report.expired++;
  else if (result.kind === 'rolled_forward') {
    // A record gone past retention is closed as expired too.
    if (!result.record || result.record.resolution?.status === 'expired') report.expired++;
    else report.rolledForward++;
  }
  if (result.kind === 'pending') return;
  // Stalled before this sweep, or just rolled forward: a run that still owes the model its answer.
  const run = await deps.states.get(sessionId);
  if (await deps.resumeStalled(sessionId, run)) {
    report.resumed++;
    return;
  }
  if (deps.needsSweep(run) || (await deps.isRunning(run))) return;
  // Its run went on but the marker stayed (its runner died before unlisting). The marker was read before
  // the run, and a run lists itself only once it runs: removed by the version the page gave, a marker
  // written since by a new pause is never touched.
  await deps.index.remove(sessionId, version);
}
