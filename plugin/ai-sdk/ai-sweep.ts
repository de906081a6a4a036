/**
 * The sweep over the AI SDK runtime's paused-run markers (plugin/loop/paused-index.ts, under this
 * runtime's own prefix), a page at a time, as plugin/loop/sweep.ts does for the plugin's loop: finish a
 * claimed answer whose ToolResult was never written, close an overdue question whose timer died,
 * continue a run that owes the model an accepted answer, drop a marker whose run went on.
 */
import type { Listed, PausedIndex } from '../loop/paused-index.js';
import type { SweepReport } from '../loop/sweep.js';
import { isPastExpiry, type InteractionRecord } from '../store/types.js';
import type { AiRunState, AiRunStates } from './ai-run-state.js';
import { stalledOnAnswer } from './history.js';
import type { AiRollForward } from './result-writer.js';

export interface AiSweepDeps {
  index: PausedIndex;
  states: AiRunStates;
  getMany(requestIds: readonly string[]): Promise<Array<InteractionRecord | undefined>>;
  rollForward(sessionId: string): Promise<AiRollForward>;
  resumeStalled(sessionId: string, seen: AiRunState | undefined): Promise<boolean>;
  isRunning(run: AiRunState | undefined): Promise<boolean>;
  signal: AbortSignal;
  onError(err: unknown): void;
}

const PAGE = 200;
/** Rest after a page, as a multiple of the time it took, so a long sweep leaves room for live traffic. */
const REST = 3;

export async function sweepAiMarkers(deps: AiSweepDeps): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, rolledForward: 0, expired: 0, resumed: 0 };
  for await (const page of deps.index.pages(PAGE)) {
    const started = Date.now();
    const records = await deps.getMany(page.map((l) => l.marker.requestId));
    for (const [i, listed] of page.entries()) {
      if (deps.signal.aborted) return report;
      report.checked++;
      const record = records[i];
      if (record?.status === 'pending' && !isPastExpiry(record, Date.now())) continue;
      // One broken session is logged and skipped: the others must not starve behind it.
      await sweepSession(deps, listed, report).catch(deps.onError);
    }
    await new Promise((resolve) => setTimeout(resolve, (Date.now() - started) * REST));
  }
  return report;
}

async function sweepSession(deps: AiSweepDeps, { sessionId, version }: Listed, report: SweepReport): Promise<void> {
  const result = await deps.rollForward(sessionId);
  if (result.kind === 'expired') report.expired++;
  else if (result.kind === 'rolled_forward') {
    if (!result.record || result.record.resolution?.status === 'expired') report.expired++;
    else report.rolledForward++;
  }
  if (result.kind === 'pending') return;
  const run = await deps.states.get(sessionId);
  if (await deps.resumeStalled(sessionId, run)) {
    report.resumed++;
    return;
  }
  if (run?.status === 'paused' || stalledOnAnswer(run) || (await deps.isRunning(run))) return;
  // The run went on but its marker stayed: removed by the version the page gave, never a newer one.
  await deps.index.remove(sessionId, version);
}
