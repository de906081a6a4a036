/**
 * Each benchmark writes one part file under bench/results/; bench/summary.ts joins the parts into
 * latest.json and the markdown table. A row always carries the baseline measured in the same run, so a
 * figure is never read without the thing it is compared against.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { REPO_ROOT } from './paths.js';

export const RESULTS_DIR = `${REPO_ROOT}bench/results/`;

export interface ResultRow {
  /** Benchmark group, e.g. "interception". */
  group: string;
  /** What was measured, e.g. "user_input_required p50". */
  metric: string;
  /** The measured figure, formatted. */
  value: string;
  /** The same-run baseline it is compared against, formatted, or '' for absolute goals. */
  baseline: string;
  /** value ÷ baseline (or the figure compared with the goal), formatted. */
  ratio: string;
  /** The goal, in words: "≤ 2×". */
  target: string;
  /** Undefined for figures shown for information only. */
  met?: boolean;
  /** Raw numbers for latest.json. */
  raw?: Record<string, number>;
}

export interface ResultPart {
  name: string;
  /** Wall time of this benchmark, seconds. */
  seconds: number;
  rows: ResultRow[];
  notes?: string[];
  /** Markdown lines the summary prints under the table (a breakdown too wide for one row). */
  tables?: string[];
  detail?: unknown;
}

export function writePart(part: ResultPart): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(`${RESULTS_DIR}part-${part.name}.json`, `${JSON.stringify(part, null, 2)}\n`);
}

export function readParts(): ResultPart[] {
  let files: string[];
  try {
    files = readdirSync(RESULTS_DIR).filter((f) => f.startsWith('part-') && f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.sort().map((f) => JSON.parse(readFileSync(`${RESULTS_DIR}${f}`, 'utf8')) as ResultPart);
}

/** Remove part files of an earlier run, so a benchmark that failed this time cannot show old figures. */
export function clearParts(): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  for (const f of readdirSync(RESULTS_DIR)) if (f.startsWith('part-')) rmSync(`${RESULTS_DIR}${f}`);
}

export const metText = (met: boolean | undefined): string => (met === undefined ? '—' : met ? 'met' : 'not met');
