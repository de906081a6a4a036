/**
 * The sweep: every session listed in the paused-run index (paused-index.ts), a page at a time, gets its
 * half-done work finished: a claimed answer whose ToolResult never got written, an overdue question whose
 * timer died, a run that owes the model an accepted answer. A marker whose run has gone on is dropped.
 * Pages are read one at a time and the event loop is let go between them, so a sweep over many thousand
 * open questions runs beside live traffic instead of in front of it.
 */
import type { PausedIndex } from './paused-index.js';
import type { RunState, RunStates } from './run-state.js';
import { stalledOnAnswer, type RollForwardResult } from './tool-result-writer.js';

export interface SweepReport {
  checked: number;
  rolledForward: number;
  expired: number;
  /** Runs stalled on an accepted answer that this sweep continued (their output goes to history). */
  resumed: number;
}

export interface SweepDeps {
  index: PausedIndex;
  states: RunStates;
  rollForward(sessionId: string): Promise<RollForwardResult>;
  /** Continue a run stalled on an answer, given its state as just read; false when not ours to do. */
  resumeStalled(sessionId: string, seen: RunState | undefined): Promise<boolean>;
  /** True while a runner holds the run: it lists the session before it saves a pause. */
  isRunning(run: RunState | undefined): Promise<boolean>;
  signal: AbortSignal;
  onError(err: unknown): void;
}

/** Sessions read per page of the index. */
const PAGE = 200;

const needsSweep = (run: RunState | undefined) => run?.status === 'paused' || stalledOnAnswer(run);

export async function sweepMarkers(deps: SweepDeps): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, rolledForward: 0, expired: 0, resumed: 0 };
  for await (const page of deps.index.pages(PAGE)) {
    for (const sessionId of page) {
      if (deps.signal.aborted) return report;
      report.checked++;
      // One session's failure is logged and the sweep goes on: the others must not starve behind it.
      await sweepSession(deps, sessionId, report).catch(deps.onError);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return report;
}

async function sweepSession(deps: SweepDeps, sessionId: string, report: SweepReport): Promise<void> {
  const { index, states } = deps;
  const result = await deps.rollForward(sessionId);
  if (result.kind === 'expired') report.expired++;
  else if (result.kind === 'rolled_forward') {
    // A record gone past retention is closed as expired too.
    if (!result.record || result.record.resolution?.status === 'expired') report.expired++;
    else report.rolledForward++;
  }
  if (result.kind === 'pending') return;
  // Stalled before this sweep, or just rolled forward: a run that still owes the model its answer.
  const run = await states.get(sessionId);
  if (await deps.resumeStalled(sessionId, run)) {
    report.resumed++;
    return;
  }
  if (needsSweep(run) || (await deps.isRunning(run))) return;
  // Its run went on but the marker stayed (its runner died before unlisting). A runner lists the session
  // before it saves the pause, so the run is read again after the marker: a marker written since then by
  // a run now running or paused is left alone, and an older version is never removed by this delete.
  const marker = await index.marker(sessionId);
  const again = marker && (await states.get(sessionId));
  if (marker && !needsSweep(again || undefined) && !(await deps.isRunning(again || undefined)))
    await index.remove(sessionId, marker.version);
}
