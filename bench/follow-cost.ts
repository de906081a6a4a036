/**
 * What the event log (contract §11) adds to a question, on each backend: log calls per question asked one
 * after another (frames of one tick go in one append), and questions/s at 10 concurrent beside the same demo
 * on the same store whose log does nothing (bench/lib/no-log.ts). Both servers run side by side; the load
 * goes to one at a time, with log, without, without, with, twice, so drift on a shared machine falls on both.
 */
import { CycleProcess } from './lib/cycle-process.js';
import { perCycleText, totalOf, type Counts } from './lib/counting-backend.js';
import { emptyFindings, fixed, rate, storeSpec, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { COUNTED_CYCLES, countCycles, throughput, warm, type CountedCycles, type Throughput } from './cycle-cost.js';
import { ratio } from './lib/stats.js';

const TARGETS = { appends: 4, rateRatio: 0.8 };
const ORDER = ['withLog', 'noLog', 'noLog', 'withLog'] as const;
type Backend = 'memory' | 'sqlite' | 'redis';

interface LogCost {
  withLog: CountedCycles;
  noLog: CountedCycles;
  runs: { withLog: Throughput[]; noLog: Throughput[] };
}

async function measureBackend(ctx: CycleContext, backend: Backend): Promise<LogCost> {
  const [withLog, noLog] = await Promise.all([
    CycleProcess.start(`${backend} with log`, ['demo', storeSpec(ctx, backend, 'log-on'), ctx.model.baseURL]),
    CycleProcess.start(`${backend} no-op log`, ['demo', storeSpec(ctx, backend, 'log-off'), ctx.model.baseURL, '--no-log']),
  ]);
  try {
    await warm(withLog, `${backend}-log-warm`);
    await warm(noLog, `${backend}-nolog-warm`);
    const redis = backend === 'redis' ? ctx.redis : undefined;
    const cost: LogCost = {
      withLog: await countCycles(withLog, `${backend}-log-count`, redis),
      noLog: await countCycles(noLog, `${backend}-nolog-count`, redis),
      runs: { withLog: [], noLog: [] },
    };
    // Two rounds of with, without, without, with: one slice at a time moves with the neighbours' load.
    for (const which of [...ORDER, ...ORDER]) {
      const server = which === 'withLog' ? withLog : noLog;
      cost.runs[which].push(await throughput(server, ctx.seconds, `${backend}-${which}-${cost.runs[which].length}`));
    }
    return cost;
  } finally {
    await Promise.all([withLog.stop(), noLog.stop()]);
  }
}

const mean = (values: number[]) => values.reduce((t, v) => t + v, 0) / values.length;

/** What the first counts have more of than the second, per name: the commands the log adds. */
function added(more: Counts, fewer: Counts): Counts {
  const out: Counts = {};
  for (const [name, n] of Object.entries(more)) if (n > (fewer[name] ?? 0)) out[name] = n - (fewer[name] ?? 0);
  return out;
}

export async function measureLogCost(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  const backends: Backend[] = ctx.redis ? ['memory', 'sqlite', 'redis'] : ['memory', 'sqlite'];
  const costs = new Map<Backend, LogCost>();
  for (const backend of backends) {
    costs.set(backend, await measureBackend(ctx, backend));
    console.log(`log cost: ${backend} done`);
  }
  out.tables.push(
    '',
    '| backend | log calls per question | appends per question, by the events each carried | store round trips per question, with log / no-op log | questions/s with log / no-op log (each slice) |',
    '|---|---|---|---|---|',
  );
  for (const [backend, cost] of costs) {
    const { append = 0, ...otherLogCalls } = cost.withLog.log;
    const appends = append / COUNTED_CYCLES;
    const storeTrips = totalOf(cost.withLog.store) / COUNTED_CYCLES;
    const slices = (runs: Throughput[]) => runs.map((r) => fixed(r.cyclesPerSecond, 0)).join(', ');
    out.tables.push(
      `| ${backend} | ${perCycleText(cost.withLog.log, COUNTED_CYCLES)} | ${perCycleText(cost.withLog.appendShapes, COUNTED_CYCLES)} | ${fixed(storeTrips, 1)} / ${fixed(totalOf(cost.noLog.store) / COUNTED_CYCLES, 1)} | ${slices(cost.runs.withLog)} / ${slices(cost.runs.noLog)} |`,
    );
    out.rows.push({
      group: 'follow',
      metric: `event log appends per question (${backend}; other log calls in brackets)`,
      value: `${fixed(appends, 1)} (${perCycleText(otherLogCalls, COUNTED_CYCLES)})`,
      baseline: `${fixed(storeTrips, 1)} store round trips (same questions)`,
      ratio: ratio(appends / storeTrips),
      target: `≤ ${TARGETS.appends}`,
      met: appends <= TARGETS.appends,
      raw: {
        appends,
        storeRoundTrips: storeTrips,
        ...Object.fromEntries(Object.entries(cost.withLog.log).map(([k, n]) => [`log.${k}`, n / COUNTED_CYCLES])),
      },
    });
    if (cost.withLog.redis && cost.noLog.redis) {
      out.rows.push({
        group: 'follow',
        metric: 'Redis commands the log adds per question (INFO commandstats, with log − no-op log; inside scripts included)',
        value: perCycleText(added(cost.withLog.redis, cost.noLog.redis), COUNTED_CYCLES),
        baseline: `${fixed(totalOf(cost.noLog.redis) / COUNTED_CYCLES, 0)} commands (no-op log)`,
        ratio: ratio(totalOf(cost.withLog.redis) / totalOf(cost.noLog.redis)),
        target: 'for information',
      });
    }
  }
  for (const [backend, cost] of costs) {
    const on = mean(cost.runs.withLog.map((r) => r.cyclesPerSecond));
    const off = mean(cost.runs.noLog.map((r) => r.cyclesPerSecond));
    out.rows.push({
      group: 'follow',
      metric: `questions/s at 10 concurrent with the event log (${backend})`,
      value: rate(on),
      baseline: `${rate(off)} (no-op log)`,
      ratio: ratio(on / off),
      target: `≥ ${TARGETS.rateRatio}×`,
      met: on / off >= TARGETS.rateRatio,
      raw: { cyclesPerSecond: on, noLogCyclesPerSecond: off },
    });
    // CPU per question moves less with the neighbours than questions/s: it tells what the log costs the server.
    const cpuOn = mean(cost.runs.withLog.map((r) => r.cpuMsPerCycle));
    const cpuOff = mean(cost.runs.noLog.map((r) => r.cpuMsPerCycle));
    out.rows.push({
      group: 'follow',
      metric: `server CPU per question with the event log (${backend})`,
      value: `${fixed(cpuOn, 3)} ms`,
      baseline: `${fixed(cpuOff, 3)} ms (no-op log)`,
      ratio: ratio(cpuOn / cpuOff),
      target: 'for information',
      raw: { cpuMs: cpuOn, noLogCpuMs: cpuOff },
    });
    for (const which of ['withLog', 'noLog'] as const) {
      const errors = cost.runs[which].reduce((t, r) => t + r.load.errors, 0);
      if (errors)
        out.notes.push(
          `${backend} ${which}: ${errors} cycles failed under load; first: ${cost.runs[which].find((r) => r.load.firstError)?.load.firstError}`,
        );
    }
  }
  out.detail = { countedCycles: COUNTED_CYCLES, backends: Object.fromEntries(costs) };
  return out;
}
