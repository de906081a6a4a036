/**
 * The event log's contract (plugin/store/event-log.ts, LogBackend), run on every backend's log: two logs
 * over one shared store (for memory one Map, for SQLite one file, for Redis one server), so "the other
 * instance" is what another process sharing the store would be.
 *
 * Waits are "until the condition holds, within a generous bound": the tests share a small machine with
 * busy neighbours, so nothing here asserts a speed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  DEFAULT_LOG_LIMITS,
  frameId,
  type LogBackend,
  type LogFrame,
  type LogLimits,
  type LogRead,
} from '../../../plugin/store/event-log.js';
import type { Backend } from '../../../plugin/store/backend.js';

export interface LogPair {
  /** Two logs over one shared store. */
  first: LogBackend;
  second: LogBackend;
  close(): Promise<void>;
}

/** The pair of two backends' logs over one shared store; closing it closes both backends. */
export function logPairOf(one: Backend, two: Backend): LogPair {
  return {
    first: one.log!,
    second: two.log!,
    close: async () => {
      await one.close();
      await two.close();
    },
  };
}

/** Polls `condition` until it holds; fails after `boundMs` with `what`. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, boundMs = 15_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `${what}: not within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Frames `from`..`to` of a run, data `{"n":<seq>}` unless given. */
export function framesOf(runId: string, from: number, to: number, data?: (seq: number) => string, event = 'delta'): LogFrame[] {
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const seq = from + i;
    return { runId, seq, event, data: data ? data(seq) : JSON.stringify({ n: seq }) };
  });
}

/** The ids of a read's frames, or 'expired'. */
function idsOf(read: LogRead): string[] | 'expired' {
  return read.kind === 'expired' ? 'expired' : read.frames.map(frameId);
}

const limitsWith = (given: Partial<LogLimits>): LogLimits => ({ ...DEFAULT_LOG_LIMITS, ...given });
const LIMITS = limitsWith({});

export function logContract(name: string, openPair: () => Promise<LogPair>): void {
  describe(`event log contract: ${name}`, () => {
    let first: LogBackend;
    let second: LogBackend;
    let pair: LogPair;
    const newKey = () => `logtest:log:${randomBytes(6).toString('hex')}`;
    before(async () => {
      pair = await openPair();
      ({ first, second } = pair);
    });
    after(async () => {
      await pair.close();
    });

    it('reads every kept frame in order, runs in the order they started, on either instance', async () => {
      const key = newKey();
      assert.deepEqual(await first.read(key), { kind: 'frames', frames: [] }, 'a session without frames reads empty');
      await first.append(key, framesOf('r1', 1, 3), LIMITS);
      await second.append(key, framesOf('r2', 1, 2), LIMITS);
      // A run that goes on after a later one started keeps its place.
      await first.append(key, framesOf('r1', 4, 4), LIMITS);
      const all = ['r1.1', 'r1.2', 'r1.3', 'r1.4', 'r2.1', 'r2.2'];
      assert.deepEqual(idsOf(await first.read(key)), all);
      assert.deepEqual(idsOf(await second.read(key)), all);
      const read = await second.read(key);
      assert.deepEqual(read.kind === 'frames' && read.frames[0], { runId: 'r1', seq: 1, event: 'delta', data: '{"n":1}' });
    });

    it('reads after a position: mid-run, at a run end, at the last frame, of an unknown run', async () => {
      const key = newKey();
      await first.append(key, framesOf('r1', 1, 4), LIMITS);
      await first.append(key, framesOf('r2', 1, 2), LIMITS);
      for (const log of [first, second]) {
        assert.deepEqual(idsOf(await log.read(key, { runId: 'r1', seq: 2 })), ['r1.3', 'r1.4', 'r2.1', 'r2.2']);
        assert.deepEqual(idsOf(await log.read(key, { runId: 'r1', seq: 4 })), ['r2.1', 'r2.2']);
        assert.deepEqual(idsOf(await log.read(key, { runId: 'r2', seq: 1 })), ['r2.2']);
        assert.deepEqual(idsOf(await log.read(key, { runId: 'r2', seq: 2 })), [], 'nothing after the last frame');
        assert.equal((await log.read(key, { runId: 'gone', seq: 3 })).kind, 'expired', 'a run not kept');
        assert.equal((await log.read(newKey(), { runId: 'r1', seq: 1 })).kind, 'expired', 'a session with no frames');
      }
    });

    it('trims a run by frames, oldest first, and tells a reader whose next frame was dropped', async () => {
      const key = newKey();
      const limits = limitsWith({ maxFrames: 3 });
      await first.append(key, framesOf('r', 1, 2), limits);
      await first.append(key, framesOf('r', 3, 5), limits);
      assert.deepEqual(idsOf(await second.read(key)), ['r.3', 'r.4', 'r.5']);
      assert.equal((await second.read(key, { runId: 'r', seq: 1 })).kind, 'expired', 'frame 2 was dropped');
      assert.deepEqual(idsOf(await second.read(key, { runId: 'r', seq: 2 })), ['r.3', 'r.4', 'r.5'], 'nothing after 2 was dropped');
      assert.deepEqual(idsOf(await second.read(key, { runId: 'r', seq: 4 })), ['r.5']);
      await second.append(key, framesOf('r', 6, 6), limits);
      assert.deepEqual(idsOf(await first.read(key)), ['r.4', 'r.5', 'r.6'], 'one more frame drops one more');

      // One batch over the bound keeps its newest frames and none of the run's older ones.
      await first.append(key, framesOf('q', 1, 7), limits);
      assert.deepEqual(idsOf(await first.read(key, { runId: 'r', seq: 6 })), ['q.5', 'q.6', 'q.7']);
      await first.append(key, framesOf('p', 1, 1), limits);
      await first.append(key, framesOf('p', 2, 6), limits);
      assert.deepEqual(idsOf(await second.read(key, { runId: 'q', seq: 7 })), ['p.4', 'p.5', 'p.6']);
      // A batch of thousands in one append.
      const many = limitsWith({ maxFrames: 2000 });
      const bulk = newKey();
      await second.append(bulk, framesOf('big', 1, 2500), many);
      assert.deepEqual(idsOf(await first.read(bulk, { runId: 'big', seq: 2497 })), ['big.2498', 'big.2499', 'big.2500']);
      assert.deepEqual(idsOf(await first.read(bulk, { runId: 'big', seq: 500 })).slice(0, 2), ['big.501', 'big.502']);
      assert.equal((await first.read(bulk, { runId: 'big', seq: 499 })).kind, 'expired');
      // Other runs keep their own frames.
      assert.deepEqual(idsOf(await second.read(key)), ['r.4', 'r.5', 'r.6', 'q.5', 'q.6', 'q.7', 'p.4', 'p.5', 'p.6']);
    });

    it('trims a run by utf-8 bytes of data and event, oldest first', async () => {
      const key = newKey();
      // 'é' is one character and two bytes: each frame costs 1 + 8 bytes, so three (27) are over 20.
      const limits = limitsWith({ maxBytes: 20 });
      const data = () => 'éééé';
      await first.append(key, framesOf('r', 1, 1, data, 'e'), limits);
      await first.append(key, framesOf('r', 2, 2, data, 'e'), limits);
      assert.deepEqual(idsOf(await second.read(key)), ['r.1', 'r.2']);
      await first.append(key, framesOf('r', 3, 3, data, 'e'), limits);
      assert.deepEqual(idsOf(await second.read(key)), ['r.2', 'r.3']);
      assert.equal((await second.read(key, { runId: 'r', seq: 0 })).kind, 'expired', 'frame 1 was dropped');
      assert.deepEqual(idsOf(await second.read(key, { runId: 'r', seq: 1 })), ['r.2', 'r.3']);

      // A batch over the bound: its newest frames that fit, and none of the run's older ones even where
      // they would fit beside them (bytes 1 + [60, 50, 40] against 100 keeps only 50 and 40).
      const sized = limitsWith({ maxBytes: 100 });
      const byLength = (lengths: number[]) => (seq: number) => 'x'.repeat(lengths[seq - 1]! - 1);
      await second.append(
        key,
        framesOf('s', 1, 1, () => '', 'e'),
        sized,
      );
      await second.append(key, framesOf('s', 2, 4, byLength([0, 60, 50, 40]), 'e'), sized);
      assert.deepEqual(idsOf(await first.read(key, { runId: 'r', seq: 3 })), ['s.3', 's.4']);
      // And steadily: one more 40-byte frame drops the 50.
      await second.append(
        key,
        framesOf('s', 5, 5, () => 'x'.repeat(39), 'e'),
        sized,
      );
      assert.deepEqual(idsOf(await first.read(key, { runId: 'r', seq: 3 })), ['s.4', 's.5']);
    });

    it('keeps at most maxRuns runs per session, dropping the oldest', async () => {
      const key = newKey();
      const limits = limitsWith({ maxRuns: 2 });
      await first.append(key, framesOf('a', 1, 2), limits);
      await second.append(key, framesOf('b', 1, 1), limits);
      await first.append(key, framesOf('c', 1, 1), limits);
      assert.deepEqual(idsOf(await second.read(key)), ['b.1', 'c.1']);
      assert.equal((await second.read(key, { runId: 'a', seq: 2 })).kind, 'expired');
      assert.deepEqual(idsOf(await first.read(key, { runId: 'b', seq: 1 })), ['c.1']);
      await second.append(key, framesOf('b', 2, 2), limits);
      assert.deepEqual(idsOf(await first.read(key)), ['b.1', 'b.2', 'c.1'], 'a kept run that goes on is not a new one');
    });

    // A call can time out after its write went through, and the caller retries.
    it('adds nothing twice when an append is retried', async () => {
      const key = newKey();
      await first.append(key, framesOf('r', 1, 3), LIMITS);
      await second.append(key, framesOf('r', 1, 3), LIMITS);
      await second.append(key, framesOf('r', 3, 4), LIMITS);
      assert.deepEqual(idsOf(await first.read(key)), ['r.1', 'r.2', 'r.3', 'r.4']);
    });

    it('gives the last kept frame of the newest run', async () => {
      const key = newKey();
      assert.equal(await first.last(key), undefined);
      await first.append(key, framesOf('r1', 1, 3), LIMITS);
      assert.deepEqual(await second.last(key), { runId: 'r1', seq: 3, event: 'delta', data: '{"n":3}' });
      await second.append(key, framesOf('r2', 1, 2), LIMITS);
      assert.deepEqual(await first.last(key), { runId: 'r2', seq: 2, event: 'delta', data: '{"n":2}' });
    });

    it('forgets a session windowMs after its last frame, and starts it afresh after', async () => {
      const key = newKey();
      const windowMs = 300;
      const limits = limitsWith({ windowMs });
      const started = Date.now();
      await first.append(key, framesOf('old', 1, 2), limits);
      const read = await second.read(key);
      // Only meaningful while the window can still be open.
      if (Date.now() - started < windowMs) assert.deepEqual(idsOf(read), ['old.1', 'old.2']);
      await until('the session expires', async () => idsOf(await second.read(key)).length === 0);
      assert.equal(await second.last(key), undefined);
      assert.equal((await first.read(key, { runId: 'old', seq: 1 })).kind, 'expired');
      await first.append(key, framesOf('new', 1, 1), limitsWith({ windowMs: 60_000 }));
      assert.deepEqual(idsOf(await second.read(key)), ['new.1'], 'no frame of the expired session comes back');
    });

    it('renews the window with each append, for the whole session', async (t) => {
      const key = newKey();
      const windowMs = 1000;
      const limits = limitsWith({ windowMs });
      const appendStarts: number[] = [];
      let tooSlow = false;
      let previousStart = Date.now();
      appendStarts.push(previousStart);
      await first.append(key, framesOf('early', 1, 1), limits);
      for (let seq = 1; seq <= 6; seq++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const start = Date.now();
        await (seq % 2 ? second : first).append(key, framesOf('late', seq, seq), limits);
        // The window is only known to have stayed open if this append ended within it.
        if (Date.now() - previousStart >= windowMs) tooSlow = true;
        previousStart = start;
        appendStarts.push(start);
      }
      const read = await first.read(key);
      if (Date.now() - previousStart >= windowMs) tooSlow = true;
      assert.ok(appendStarts.at(-1)! - appendStarts[0]! > windowMs, 'the session outlived one window');
      if (tooSlow) {
        t.diagnostic('an append or the read took longer than the window on this machine; the renewal was not checked');
        return;
      }
      assert.deepEqual(idsOf(read).slice(0, 1), ['early.1'], "the first run's frame lives as long as the session");
    });

    it('wakes watchers on the other instance for appends and signals, and not after they unsubscribe', async () => {
      const key = newKey();
      const seen: Array<string | undefined> = [];
      const stop = await first.watch(key, (signal) => seen.push(signal));
      await second.append(key, framesOf('r', 1, 1), LIMITS);
      await until('the append woke the other instance', () => seen.includes(undefined));
      await second.signal(key, 'stop: ünïcode "quoted"');
      await until('the signal arrived with its text', () => seen.includes('stop: ünïcode "quoted"'));
      stop();
      seen.length = 0;

      // A watcher that stays shows when a wake-up was delivered; the one that left must not have had it.
      const control: Array<string | undefined> = [];
      const stopControl = await first.watch(key, (signal) => control.push(signal));
      await second.append(key, framesOf('r', 2, 2), LIMITS);
      await second.signal(key, 'after');
      await until('the remaining watcher saw both', () => control.includes(undefined) && control.includes('after'));
      assert.deepEqual(seen, [], 'nothing reached the watcher that left');
      stopControl();
    });

    it('wakes watchers for appends and signals of their own instance, per key', async () => {
      const key = newKey();
      const other = newKey();
      const seen: Array<string | undefined> = [];
      const elsewhere: Array<string | undefined> = [];
      const stop = await first.watch(key, (signal) => seen.push(signal));
      const stopOther = await first.watch(other, (signal) => elsewhere.push(signal));
      await first.append(key, framesOf('r', 1, 1), LIMITS);
      await first.signal(key, 'own');
      await until('the own instance woke its watcher', () => seen.includes(undefined) && seen.includes('own'));
      await first.signal(other, 'marker');
      await until('the other key got its own signal', () => elsewhere.includes('marker'));
      assert.deepEqual(elsewhere, ['marker'], 'a key is not woken by another key');
      stop();
      stopOther();
    });

    it('keeps other watchers of a key when one leaves, and watches again after all left', async () => {
      const key = newKey();
      const one: Array<string | undefined> = [];
      const two: Array<string | undefined> = [];
      const stopOne = await first.watch(key, (signal) => one.push(signal));
      const stopTwo = await first.watch(key, (signal) => two.push(signal));
      stopOne();
      stopOne();
      await second.signal(key, 'first');
      await until('the remaining watcher is woken', () => two.includes('first'));
      stopTwo();
      const three: Array<string | undefined> = [];
      const stopThree = await first.watch(key, (signal) => three.push(signal));
      await second.signal(key, 'second');
      await until('a new watcher after all had left is woken', () => three.includes('second'));
      assert.deepEqual(one, []);
      assert.deepEqual(two, ['first']);
      stopThree();
    });

    it('keeps frames exactly as given: unicode, quotes, escapes, colons, large data', async () => {
      const key = newKey();
      const big = JSON.stringify({ text: 'x'.repeat(300_000), tail: '终' });
      const given: LogFrame[] = [
        { runId: 'r', seq: 1, event: 'delta', data: JSON.stringify({ text: 'héllo 😀 終わり עברית e\u0301 \u{1F468}\u200D\u{1F469}' }) },
        { runId: 'r', seq: 2, event: 'delta', data: '{"q":"\\"quoted\\" \\\\ back\\nslash \\u0000 \\t"}' },
        { runId: 'r', seq: 3, event: 'évènement:12:3', data: '12:34:5:{"colons":"a:b"}' },
        { runId: 'r', seq: 4, event: 'e', data: '' },
        { runId: 'r', seq: 5, event: 'big', data: big },
        { runId: 'r', seq: 6, event: 'spaces', data: '  {"padded": true}  ' },
      ];
      await first.append(key, given.slice(0, 3), LIMITS);
      await first.append(key, given.slice(3), LIMITS);
      const read = await second.read(key);
      assert.equal(read.kind, 'frames');
      assert.equal(read.frames.length, given.length, 'never merged or split');
      read.frames.forEach((frame, i) => assert.deepEqual(frame, given[i], `frame ${i + 1}`));
      assert.deepEqual(await second.read(key, { runId: 'r', seq: 4 }), { kind: 'frames', frames: given.slice(4) });
      assert.deepEqual(await second.last(key), given.at(-1));
    });

    it('keeps per-run seq order under many concurrent appends of different runs and sessions', async () => {
      const sessions = Array.from({ length: 6 }, newKey);
      const runs = ['a', 'b', 'c'];
      const appendsPerRun = 8;
      const framesPerAppend = 2;
      // Each run appends in order (as a run does); runs and sessions run side by side, on both instances.
      await Promise.all(
        sessions.flatMap((key, s) =>
          runs.map(async (runId, r) => {
            for (let i = 0; i < appendsPerRun; i++) {
              const from = i * framesPerAppend + 1;
              const log = (s + r + i) % 2 ? first : second;
              await log.append(key, framesOf(runId, from, from + framesPerAppend - 1), LIMITS);
            }
          }),
        ),
      );
      const expected = Array.from({ length: appendsPerRun * framesPerAppend }, (_, i) => i + 1);
      for (const key of sessions) {
        const read = await first.read(key);
        assert.equal(read.kind, 'frames');
        const byRun = new Map<string, number[]>();
        let current: string | undefined;
        for (const frame of read.frames) {
          // A run's frames are contiguous in a read: runs are kept one after the other.
          if (frame.runId !== current) assert.ok(!byRun.has(frame.runId), `run ${frame.runId} appears once, contiguous`);
          current = frame.runId;
          byRun.set(frame.runId, [...(byRun.get(frame.runId) ?? []), frame.seq]);
        }
        assert.deepEqual([...byRun.keys()].sort(), runs);
        for (const runId of runs) assert.deepEqual(byRun.get(runId), expected, `${key} ${runId} in seq order`);
      }
    });
  });
}
