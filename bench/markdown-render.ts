/**
 * Benchmark — what the card's Markdown renderer costs (not a test). Builds the widget's Markdown chunk
 * (ask-user-kit.markdown.js) in memory with the project's vite config, loads it into Debian's Chromium, and
 * times each of the worst shapes §9.3's limits allow (tests/widget/helpers/markdown-shapes.ts) against
 * ordinary Markdown of the same length, interleaved sample by sample in the same page. A sample is what the
 * card does with a text: `renderMarkdown`, the fragment put in the page, and its layout.
 * Run: `node --import tsx bench/markdown-render.ts`.
 */
import { createBuilder, type Rolldown } from 'vite';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { existsSync } from 'node:fs';
import { LONGEST, ORDINARY, WORST_SHAPES } from '../tests/widget/helpers/markdown-shapes.js';
import { ms, ratio } from './lib/stats.js';
import { writePart, type ResultRow } from './lib/results.js';

/** Any text within §9.3's limits renders in less than this. */
const GOAL_MS = 50;
const WARM_UP = 3;
const ROUNDS = Number(process.env.BENCH_MARKDOWN_ROUNDS ?? 15);

const started = performance.now();
const root = fileURLToPath(new URL('..', import.meta.url));

async function markdownChunk(): Promise<string> {
  const builder = await createBuilder({
    root,
    configFile: `${root}vite.config.ts`,
    logLevel: 'silent',
    environments: { module: { build: { write: false } } },
  });
  const output = (await builder.build(builder.environments.module!)) as Rolldown.RolldownOutput | Rolldown.RolldownOutput[];
  const chunk = [output]
    .flat()
    .flatMap((o) => o.output)
    .find((c) => c.fileName === 'ask-user-kit.markdown.js');
  if (chunk?.type !== 'chunk') throw new Error('the ES build wrote no ask-user-kit.markdown.js; has the chunk been renamed?');
  return chunk.code;
}

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (!executablePath) throw new Error('No Chromium found: install Debian\'s "chromium" (bash tests/ensure-tools.sh) or set CHROMIUM_PATH.');

const code = await markdownChunk();
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
let samples: Record<string, { shape: number[]; ordinary: number[] }>;
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body></body></html>');
  // Plain JavaScript in a string: tsx would wrap named functions of an inline callback in its own helper.
  samples = (await page.evaluate(
    `(async ({ code, shapes, ordinary, warmUp, rounds }) => {
      const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
      const { renderMarkdown } = await import(url);
      const box = document.body.appendChild(document.createElement('div'));
      const time = (text) => {
        const t = performance.now();
        box.append(renderMarkdown(text));
        void box.offsetHeight;
        const took = performance.now() - t;
        box.replaceChildren();
        return took;
      };
      const out = {};
      for (const [name, text] of Object.entries(shapes)) {
        const s = (out[name] = { shape: [], ordinary: [] });
        for (let i = 0; i < warmUp + rounds; i++) {
          const a = time(ordinary);
          const b = time(text);
          if (i >= warmUp) s.ordinary.push(a), s.shape.push(b);
        }
      }
      return out;
    })(${JSON.stringify({ code, shapes: WORST_SHAPES, ordinary: ORDINARY, warmUp: WARM_UP, rounds: ROUNDS })})`,
  )) as typeof samples;
} finally {
  await browser.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const measured = Object.entries(samples).map(([name, s]) => ({ name, shape: median(s.shape), ordinary: median(s.ordinary) }));
console.table(
  measured.map((m) => ({
    shape: m.name,
    'median ms': m.shape.toFixed(2),
    'ordinary ms': m.ordinary.toFixed(2),
    ratio: ratio(m.shape / m.ordinary),
  })),
);

const group = `Markdown rendering (${LONGEST.toLocaleString('en-US')} characters, Chromium; median of ${ROUNDS})`;
const row = (metric: string, m: (typeof measured)[number]): ResultRow => ({
  group,
  metric,
  value: ms(m.shape),
  baseline: `ordinary Markdown of the same length ${ms(m.ordinary)}`,
  ratio: ratio(m.shape / m.ordinary),
  target: `< ${GOAL_MS} ms`,
  met: m.shape < GOAL_MS,
  raw: { ms: m.shape, ordinaryMs: m.ordinary },
});
const worst = measured.reduce((a, b) => (b.shape / b.ordinary > a.shape / a.ordinary ? b : a));
writePart({
  name: '5-markdown',
  seconds: (performance.now() - started) / 1000,
  rows: [row(`worst shape: ${worst.name}`, worst)],
  tables: [
    '',
    `Markdown rendering, every shape (median ms of ${ROUNDS}, ordinary Markdown of the same length interleaved):`,
    '',
    '| shape | ms | ordinary ms | ratio |',
    '|---|---|---|---|',
    ...measured.map(
      (m) => `| ${m.name.replace(/\|/g, '\\|')} | ${m.shape.toFixed(2)} | ${m.ordinary.toFixed(2)} | ${ratio(m.shape / m.ordinary)} |`,
    ),
  ],
  detail: measured,
});
