/**
 * Following a run from another instance (contract §11), two demo servers on one Redis: how long a frame
 * takes from the running instance's append to a follower's socket on the other instance; what an idle
 * follower costs in memory beside an idle chat stream; what 1,000 idle followers ask of the store.
 */
import { loadavg } from 'node:os';
import { CycleProcess } from './lib/cycle-process.js';
import { load, openChat, openStream, type OpenStream, type TimedFrame } from './lib/cycle-client.js';
import { countsDelta, perCycleText, totalOf, type Counts } from './lib/counting-backend.js';
import { commandStats, flushAll } from './lib/redis-server.js';
import { emptyFindings, fixed, one, sleep, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { SLOW_MESSAGE } from './lib/instant-model.js';
import { bytes, ms, ratio, summarize } from './lib/stats.js';
import { modelHolds } from './cycle-streams.js';

/** How the model answers a followed run: 20 parts 20 ms apart, so each part is an append of its own. */
export const SLOW = { chunks: 20, gapMs: 20 };
const CONCURRENCY = 10;
/** Memory is taken from STREAMS to 2 × STREAMS open, as for chat streams (cycle-streams.ts). */
const STREAMS = 500;
/** Idle chat streams on A, and as many idle followers on B. */
const OPEN = 2 * STREAMS;
/** Followers opened at once: their requests do not all land in one burst. */
const OPEN_BATCH = 50;
const TARGETS = { p50Ms: 20, p99Ms: 100, memoryRatio: 1.2 };

/** Two demo servers on the flushed Redis; `timed`: A records its appends, both watch their event loop. */
async function twoInstances(ctx: CycleContext, label: string, timed: boolean): Promise<[CycleProcess, CycleProcess]> {
  await flushAll(ctx.redis!.port);
  const spec = `redis:${ctx.redis!.url}`;
  const flags = timed ? ['--loop-delay'] : [];
  return Promise.all([
    CycleProcess.start(`${label} A`, ['demo', spec, ctx.model.baseURL, ...flags, ...(timed ? ['--record-appends'] : [])]),
    CycleProcess.start(`${label} B`, ['demo', spec, ctx.model.baseURL, ...flags]),
  ]);
}

/**
 * Frames later than `limitMs`, and in how many separate moments they arrived (arrivals more than 100 ms
 * apart start a new one): a few stalls of the machine or a server show as few moments with many frames.
 */
function lateFrames(delays: Array<{ delay: number; at: number }>, limitMs: number): { frames: number; moments: number } {
  const late = delays.filter((d) => d.delay > limitMs).sort((x, y) => x.at - y.at);
  const moments = late.filter((d, i) => i === 0 || d.at - late[i - 1]!.at > 100).length;
  return { frames: late.length, moments };
}

/** `GET /api/chat/stream` for a session, as a reloaded page asks it (no Last-Event-ID). */
const follow = (port: number, sessionId: string) => openStream(port, `/api/chat/stream?sessionId=${encodeURIComponent(sessionId)}`);

interface FollowedRun {
  /** The frames as the chat's own client on instance A read them. */
  chat: TimedFrame[];
  /** The same run's frames as the follower on instance B read them. */
  followed: TimedFrame[];
  /** When B's answer began (epochMs): frames appended later reached B live, not by replay. */
  followingAt: number;
}

/**
 * A slow run on `a`, followed from `b` once it is in flight: before the run holds its session, B has
 * nothing to follow and answers 204, so the follower asks again.
 */
async function followedRun(a: number, b: number, sessionId: string): Promise<FollowedRun | undefined> {
  const chat = openStream(a, '/api/chat', { sessionId, message: SLOW_MESSAGE });
  await chat.headers;
  let follower: OpenStream | undefined;
  let followingAt = 0;
  for (let tries = 0; tries < 100 && !follower; tries++) {
    const attempt = follow(b, sessionId);
    const { status, at } = await attempt.headers;
    if (status === 200) [follower, followingAt] = [attempt, at];
    else if (status !== 204) break;
    else await attempt.ended.then(() => sleep(5));
  }
  const [chatFrames, followed] = await Promise.all([chat.ended, follower?.ended ?? []]);
  return follower ? { chat: chatFrames, followed, followingAt } : undefined;
}

/** `runs` slow runs, CONCURRENCY at a time, each followed from the other instance. */
async function followedRuns(a: number, b: number, runs: number, prefix: string): Promise<{ runs: FollowedRun[]; missed: number }> {
  const out: FollowedRun[] = [];
  let next = 0;
  let missed = 0;
  const worker = async () => {
    while (next < runs) {
      const run = await followedRun(a, b, `${prefix}-${next++}`);
      if (run) out.push(run);
      else missed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { runs: out, missed };
}

export async function measureDelay(ctx: CycleContext, runs: number): Promise<CycleFindings> {
  const out = emptyFindings();
  if (!ctx.redis) {
    out.notes.push('follow delay across two instances: not measured (redis-server is not installed)');
    return out;
  }
  const [a, b] = await twoInstances(ctx, 'follow delay', true);
  try {
    await followedRuns(a.port, b.port, CONCURRENCY, 'delay-warm');
    // One question at a time per process: its replies are told apart by type only.
    await a.ask({ type: 'appends' }, 'appends');
    await Promise.all([a.ask({ type: 'loop' }, 'loop'), b.ask({ type: 'loop' }, 'loop')]);
    const machineLoad = loadavg()[0]!;
    const followed = await followedRuns(a.port, b.port, runs, 'delay');
    const [loopA, loopB] = await Promise.all([a.ask({ type: 'loop' }, 'loop'), b.ask({ type: 'loop' }, 'loop')]);
    const { started } = await a.ask({ type: 'appends' }, 'appends');
    const arrivals: Array<{ delay: number; at: number }> = [];
    const toOwnClient: number[] = [];
    let replayed = 0;
    for (const run of followed.runs) {
      const own = new Map(run.chat.map((frame) => [frame.id, frame.at]));
      for (const frame of run.followed) {
        const appended = frame.id === undefined ? undefined : started[frame.id];
        if (appended === undefined) continue;
        // Appended before B answered: it came by replay, not live.
        if (appended < run.followingAt) {
          replayed++;
          continue;
        }
        arrivals.push({ delay: frame.at - appended, at: frame.at });
        const ownAt = own.get(frame.id);
        if (ownAt !== undefined) toOwnClient.push(ownAt - appended);
      }
    }
    if (arrivals.length === 0) throw new Error(`no frame reached a follower live (${followed.missed} runs never followed)`);
    const far = summarize(arrivals.map((d) => d.delay));
    const near = summarize(toOwnClient);
    for (const [p, target] of [
      ['p50', TARGETS.p50Ms],
      ['p99', TARGETS.p99Ms],
    ] as const) {
      out.rows.push({
        group: 'follow',
        metric: `follow delay ${p}, append on instance A → frame on a follower's socket on instance B (Redis, ${CONCURRENCY} runs at once)`,
        value: ms(far[p]),
        baseline: `${ms(near[p])} (A's own client)`,
        ratio: ratio(far[p] / near[p]),
        target: `≤ ${target} ms`,
        met: far[p] <= target,
        raw: { ms: far[p], ownClientMs: near[p] },
      });
    }
    const late = lateFrames(arrivals, TARGETS.p99Ms);
    const loop = (l: { p99Ms: number; maxMs: number }) => `p99 ${ms(l.p99Ms)}, max ${ms(l.maxMs)}`;
    out.notes.push(
      `follow delay: ${far.count} frames followed live over ${followed.runs.length} runs of ${SLOW.chunks} parts ${SLOW.gapMs} ms apart (${replayed} replayed frames left out, ${followed.missed} runs never followed); max ${ms(far.max)}, A's own client max ${ms(near.max)}; ${late.frames} frames over ${TARGETS.p99Ms} ms, arriving in ${late.moments} separate moments; event loop delay A ${loop(loopA)}, B ${loop(loopB)}; load average ${fixed(machineLoad, 1)} at the start`,
    );
    out.detail = {
      followDelay: far,
      ownClientDelay: near,
      runs: followed.runs.length,
      missed: followed.missed,
      replayed,
      late,
      loop: { a: loopA, b: loopB },
      slow: SLOW,
    };
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  return out;
}

interface PerStream {
  rss: number;
  heap: number;
}

/** Memory per stream over the second STREAMS of OPEN streams that `open` holds, each read after a full collection. */
async function memoryPerStream(server: CycleProcess, open: (count: number) => Promise<void>): Promise<PerStream> {
  await open(STREAMS);
  const half = await server.stats(true);
  await open(OPEN);
  const full = await server.stats(true);
  return { rss: (full.rssBytes - half.rssBytes) / STREAMS, heap: (full.heapUsedBytes - half.heapUsedBytes) / STREAMS };
}

export async function measureIdle(ctx: CycleContext, idleSeconds: number): Promise<CycleFindings> {
  const out = emptyFindings();
  if (!ctx.redis) {
    out.notes.push('idle followers: not measured (redis-server is not installed)');
    return out;
  }
  const [a, b] = await twoInstances(ctx, 'idle followers', false);
  const chats: Array<ReturnType<typeof openChat>> = [];
  const followers: OpenStream[] = [];
  try {
    // Warm both on what they then hold, so first-request allocations do not count as per-stream memory.
    await load({ route: one(a.port), concurrency: CONCURRENCY, seconds: 1, maxCycles: 500, prefix: 'idle-warm' });
    await followedRuns(a.port, b.port, 2 * CONCURRENCY, 'idle-warm-follow');
    // Runs that wait on the model: idle chat streams on A, and runs in flight with nothing to send for B's followers.
    ctx.model.hold(true);
    const openChats = async (count: number) => {
      for (let i = chats.length; i < count; i++) chats.push(openChat(a.port, `idle-${i}`));
      await modelHolds(ctx, count);
      await sleep(300);
    };
    const openFollowers = async (count: number) => {
      while (followers.length < count) {
        const batch = Array.from({ length: Math.min(OPEN_BATCH, count - followers.length) }, (_, i) =>
          follow(b.port, `idle-${followers.length + i}`),
        );
        followers.push(...batch);
        const statuses = await Promise.all(batch.map((f) => f.headers));
        const refused = statuses.find((s) => s.status !== 200);
        if (refused) throw new Error(`a follower got ${refused.status} instead of a stream`);
      }
      await sleep(300);
    };
    const chat = await memoryPerStream(a, openChats);
    const follower = await memoryPerStream(b, openFollowers);
    for (const [what, key] of [
      ['RSS', 'rss'],
      ['heap', 'heap'],
    ] as const) {
      out.rows.push({
        group: 'follow',
        metric: `server ${what} per idle follower (instance B, 500 → 1,000, Redis)`,
        value: bytes(follower[key]),
        baseline: `${bytes(chat[key])} per idle chat stream (instance A, same run)`,
        ratio: ratio(follower[key] / chat[key]),
        target: `≤ ${TARGETS.memoryRatio}×`,
        met: follower[key] / chat[key] <= TARGETS.memoryRatio,
        raw: { bytes: follower[key], chatStreamBytes: chat[key] },
      });
    }

    // Longer than a follower's liveness check (15 s), so each follower's check falls in the window once.
    const before = await Promise.all([a.stats(), b.stats()]);
    const redisBefore = await commandStats(ctx.redis.port);
    const t0 = performance.now();
    await sleep(idleSeconds * 1000);
    const seconds = (performance.now() - t0) / 1000;
    const redis = countsDelta(await commandStats(ctx.redis.port), redisBefore);
    delete redis.info;
    const after = await Promise.all([a.stats(), b.stats()]);
    const callsOf = (i: 0 | 1): Counts => ({
      ...countsDelta(after[i].counts, before[i].counts),
      ...Object.fromEntries(Object.entries(countsDelta(after[i].logCounts, before[i].logCounts)).map(([name, n]) => [`log ${name}`, n])),
    });
    const [runner, followerCalls] = [callsOf(0), callsOf(1)];
    const perSecond = (counts: Counts) => `${fixed(totalOf(counts) / seconds, 1)}/s`;
    out.rows.push({
      group: 'follow',
      metric: `store calls of ${OPEN.toLocaleString('en-US')} idle followers (instance B) over ${fixed(seconds, 0)} s`,
      value: `${perSecond(followerCalls)}, ${fixed(totalOf(followerCalls) / OPEN, 1)} per follower (${perCycleText(followerCalls, 1)})`,
      baseline: `${perSecond(runner)} (${perCycleText(runner, 1)}): instance A's heartbeat for its ${OPEN.toLocaleString('en-US')} runs`,
      ratio: totalOf(runner) > 0 ? `${ratio(totalOf(followerCalls) / totalOf(runner))} the heartbeat's` : '',
      target: 'none beyond the heartbeat',
      met: totalOf(followerCalls) === 0,
      raw: { callsPerSecond: totalOf(followerCalls) / seconds, heartbeatPerSecond: totalOf(runner) / seconds, seconds },
    });
    out.rows.push({
      group: 'follow',
      metric: `Redis commands over the same ${fixed(seconds, 0)} s, both instances (INFO commandstats; inside scripts included)`,
      value: perCycleText(redis, 1),
      baseline: '',
      ratio: '',
      target: 'cross-check',
    });
    out.detail = { chatStream: chat, follower, idle: { seconds, runner, follower: followerCalls, redis } };
  } finally {
    // Servers first, then the model: 1,000 runs released at once would all write their pause together, on
    // a loaded machine past the store's time budget, for nothing measured.
    for (const s of [...chats, ...followers]) s.abort();
    await Promise.all([a.stop(), b.stop()]);
    ctx.model.hold(false);
  }
  return out;
}
