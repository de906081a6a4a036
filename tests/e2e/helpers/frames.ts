/**
 * The numbered frames of docs/protocol.md §11 as the page received them, and the page's transcript as a user
 * reads it. A cut, a reconnect or a reload may split one run over several responses; these put the pieces back
 * together so a test can say whether any frame came twice or went missing, and what the page drew.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { parseSseWithIds } from './model-evidence.js';
import type { TappedExchange, WireTap } from './wire-tap.js';

export interface Frame {
  id: string | undefined;
  runId: string | undefined;
  seq: number | undefined;
  event: string;
  data: any;
  /** Which response carried it: `POST /api/chat`, `GET /api/chat/stream?…`. */
  via: string;
  exchange: TappedExchange;
}

const STREAM_PATHS = new Set(['/api/chat', '/api/chat/continue', '/api/chat/stream']);
const FRAME_ID = /^([A-Za-z0-9_-]+)\.([0-9]+)$/;

/** Whole frames only: a frame cut in half by a dropped socket never ended with its blank line, so it is not one. */
export function framesOf(tap: WireTap, exchanges: readonly TappedExchange[] = tap.exchanges): Frame[] {
  const frames: Frame[] = [];
  for (const exchange of exchanges) {
    if (!STREAM_PATHS.has(exchange.path.split('?')[0]!) || !exchange.contentType?.startsWith('text/event-stream')) continue;
    const via = `${exchange.method} ${exchange.path}`;
    for (const { id, event, data } of parseSseWithIds(tap.body(exchange))) {
      const m = id ? FRAME_ID.exec(id) : null;
      frames.push({ id, runId: m?.[1], seq: m ? Number(m[2]) : undefined, event, data, via, exchange });
    }
  }
  return frames;
}

/**
 * Every frame arrived once and none is missing: ids are unique, and each run's seqs run without a gap, from 1
 * unless `fromFirst` is false (a run whose start the page drew from the session view). Returns the frames of
 * each run in seq order.
 */
export function assertEachFrameOnce(
  frames: Frame[],
  what: string,
  { fromFirst = true }: { fromFirst?: boolean } = {},
): Map<string, Frame[]> {
  const seen = new Map<string, Frame>();
  for (const f of frames) {
    assert.ok(f.id, `${what}: a ${f.event} frame on ${f.via} has no id`);
    const first = seen.get(f.id);
    assert.equal(first, undefined, `${what}: frame ${f.id} (${f.event}) arrived twice: on ${first?.via} and on ${f.via}`);
    seen.set(f.id, f);
  }
  const runs = new Map<string, Frame[]>();
  for (const f of frames) runs.set(f.runId!, [...(runs.get(f.runId!) ?? []), f]);
  for (const [runId, list] of runs) {
    list.sort((a, b) => a.seq! - b.seq!);
    const seqs = list.map((f) => f.seq!);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => (fromFirst ? 1 : seqs[0]!) + i),
      `${what}: run ${runId} has a gap in its frames: ${seqs.join(',')}`,
    );
  }
  return runs;
}

/**
 * What the page shows, item by item: `<kind>: <text>`. A tool item gives its summary (the folded JSON is the
 * same every run); a card gives its receipt without the time, or says it is still open.
 */
export async function transcriptOf(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('#log > li')].map((li) => {
      const kind = li.dataset.testid ?? li.className;
      if (kind === 'tool-text') return `${kind}: ${li.querySelector('summary')?.textContent ?? ''}`;
      const card = li.querySelector('ask-user-card');
      if (!card) return `${kind}: ${li.textContent ?? ''}`;
      const root = card.shadowRoot;
      const receipt = root?.querySelector('[part~="receipt"]');
      if (!receipt) return `${kind}: ${root?.querySelector('[part~="form"]') ? 'open' : 'empty'}`;
      const parts = [...receipt.querySelectorAll('[part]')]
        .filter((el) => !el.matches('[part~="receipt-time"]') && !el.closest('[part~="receipt-time"]'))
        .filter((el) => ['receipt-question', 'receipt-status', 'receipt-answer', 'receipt-note'].some((p) => el.matches(`[part~="${p}"]`)))
        .map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
      return `${kind}: ${parts.join(' | ')}`;
    }),
  );
}
