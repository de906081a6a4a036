/**
 * Joins the part files the benchmarks wrote into bench/results/latest.json and prints the markdown table
 * for the README's performance section, then the targets missed. Run by bench/run.sh after the
 * benchmarks; `node --import tsx bench/summary.ts` reprints the last run's table.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { metText, readParts, RESULTS_DIR, type ResultRow } from './lib/results.js';

const failedAt = process.argv.indexOf('--failed');
const failed = failedAt > 0 ? process.argv[failedAt + 1]!.split(',').filter(Boolean) : [];
const parts = readParts();
const rows = parts.flatMap((p) => p.rows);
const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
  node: process.version,
  /** 1-minute load average when the summary ran: a shared machine makes every figure noisier. */
  loadAverage1m: +loadavg()[0]!.toFixed(2),
};

writeFileSync(
  `${RESULTS_DIR}latest.json`,
  `${JSON.stringify({ finishedAt: new Date().toISOString(), machine, failed, parts }, null, 2)}\n`,
);

const cell = (text: string) => text.replace(/\|/g, '\\|');
const lines: string[] = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${machine.cpus} × ${machine.cpu}, Node ${machine.node} (load average ${machine.loadAverage1m} at the end). ` +
    'Every ratio is against a baseline measured in the same run on the same machine.',
  '',
  '| Benchmark | Metric | Measured | Baseline (same run) | Ratio | Target | Result |',
  '|---|---|---|---|---|---|---|',
];
let lastGroup = '';
for (const r of rows) {
  const group = r.group === lastGroup ? '' : r.group;
  lastGroup = r.group;
  lines.push(`| ${[group, r.metric, r.value, r.baseline, r.ratio, r.target, metText(r.met)].map(cell).join(' | ')} |`);
}
console.log('\n## Benchmark summary (paste into the README performance table)\n');
console.log(lines.join('\n'));
const tables = parts.flatMap((p) => p.tables ?? []);
if (tables.length) console.log(tables.join('\n'));
const notes = parts.flatMap((p) => (p.notes ?? []).map((n) => `- ${p.name}: ${n}`));
if (notes.length) console.log(`\n${notes.join('\n')}`);

const missed = rows.filter((r: ResultRow) => r.met === false);
console.log(
  `\nTargets: ${rows.filter((r) => r.met === true).length} met, ${missed.length} not met${failed.length ? `; failed to run: ${failed.join(', ')}` : ''}.`,
);
// An absolute target has no ratio: the figure alone is set against it.
for (const r of missed)
  console.log(`  not met — ${r.group}: ${r.metric} = ${r.value} (${r.ratio ? `${r.ratio}; ` : ''}target ${r.target})`);
console.log(`\nTotal benchmark time ${parts.reduce((t, p) => t + p.seconds, 0).toFixed(0)} s; JSON in bench/results/latest.json`);
