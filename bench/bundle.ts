/**
 * Benchmark 4 — widget bundle sizes (not a test). Runs bench/bundle-size.ts (which builds both bundles
 * and lit alone in memory and prints their sizes), passes its output through, and reads the gzip sizes
 * out of its first table for the summary. Run: `node --import tsx bench/bundle.ts`.
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { bytes, ratio } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';
import { REPO_ROOT } from './lib/paths.js';

// This file may run compiled from bench/results/build/; bundle-size.ts always runs from the source tree.
const script = `${REPO_ROOT}bench/bundle-size.ts`;
// The standalone's goal is on what a plain card downloads before it can be answered (bundle-size.ts).
const GOALS = { module: 6 * 1024, plainCard: 26 * 1024 };

const started = performance.now();
const out = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 8 << 20 });
// The size table is the first block of the output; the per-module tables after it are for digging.
const firstTable = out.slice(0, out.indexOf('┘') + 1);
console.log(`${firstTable}\n(per-module tables: node --import tsx bench/bundle-size.ts)`);

/** The cells of console.table rows: `│ 0 │ 'name' │ '1.00 KB' │ … │`. */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .map((line) =>
      line
        .split('│')
        .slice(1, -1)
        .map((cell) =>
          cell
            .trim()
            .replace(/^'(.*)'$/, '$1')
            .trim(),
        ),
    );
}

const rowsOut = tableRows(out);
const header = rowsOut.find((cells) => cells.includes('bundle') && cells.includes('gzip'));
if (!header) throw new Error('bench/bundle-size.ts printed no table with "bundle" and "gzip" columns; has its output changed?');
const col = (name: string) => header.indexOf(name);
/** gzip bytes of the first row whose bundle name starts with `prefix` (bundle-size.ts prints KB of 1024 B). */
function gzipOf(prefix: string): number {
  const row = rowsOut.find((cells) => cells[col('bundle')]?.startsWith(prefix));
  const match = row?.[col('gzip')]?.match(/^([\d.]+) KB$/);
  if (!match) throw new Error(`no gzip size for ${JSON.stringify(prefix)} in bench/bundle-size.ts output`);
  return Number(match[1]) * 1024;
}

/** Chunks the ES module loads on first use (listed indented, marked "(lazy)"; not the standalone's), gzipped one by one. */
const lazy = rowsOut
  .filter((cells) => cells[col('bundle')]?.endsWith('(lazy)') && !cells[col('bundle')]!.includes('.standalone-'))
  .map((cells) => Number(cells[col('gzip')]!.replace(' KB', '')) * 1024)
  .reduce((a, b) => a + b, 0);
const sizes = {
  module: gzipOf('ask-user-kit.js'),
  moduleLazy: lazy,
  standalone: gzipOf('ask-user-kit.standalone.js'),
  /** The standalone entry plus every chunk a plain single-choice card loads before it can be answered. */
  plainCard: gzipOf('plain card before it can be answered'),
  /** …plus the chunk it loads to send the answer by itself, up to its receipt. */
  plainCardSending: gzipOf('plain card sending by itself'),
  lit: gzipOf('lit alone'),
};
const group = 'Widget bundles (gzip -9, via bench/bundle-size.ts)';
const row = (metric: string, size: number, goal: number): ResultRow => ({
  group,
  metric,
  value: bytes(size),
  baseline: `lit alone ${bytes(sizes.lit)} (${ratio(size / sizes.lit)} of it)`,
  ratio: ratio(size / goal) + ' of goal',
  target: `≤ ${bytes(goal)}`,
  met: size <= goal,
  raw: { gzipBytes: size, litGzipBytes: sizes.lit, goalBytes: goal },
});
writePart({
  name: '4-bundle',
  seconds: (performance.now() - started) / 1000,
  rows: [
    row(
      'plain single-choice card before it can be answered (standalone, lit inside; every file it loads)',
      sizes.plainCard,
      GOALS.plainCard,
    ),
    { ...row('`ask-user-kit.standalone.js` alone', sizes.standalone, GOALS.plainCard), target: '—', met: undefined },
    {
      ...row('plain card sending its answer by itself, to its receipt (+ client calls)', sizes.plainCardSending, GOALS.plainCard),
      target: '—',
      met: undefined,
    },
    row('`ask-user-kit.js` ES module entry (lit external)', sizes.module, GOALS.module),
    ...(lazy > 0 ? [{ ...row('ES module entry + its lazy chunks', sizes.module + lazy, GOALS.module), target: '—', met: undefined }] : []),
  ],
  detail: sizes,
});
