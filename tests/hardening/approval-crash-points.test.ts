/**
 * kill -9 at each point of an approved call's life (contract §12; fixtures/crash-server.ts), on one
 * SQLite file, then with a quarter as many runs on a PostgreSQL server of the file's own. Every run: the
 * model calls a tool that needs approval, the card comes, the user approves (or denies) it, and the
 * process that took the decision dies at its point; then two fresh processes start on the same store,
 * and their startup sweeps continue every stalled run. What must hold per run,
 * counted across every process: the tool ran at most once (read from the file each run appends a line
 * to), or, for a tool declared idempotent, again after an interrupted run; every tool call in the final
 * history has its one result; the model was handed that result exactly once; and the session's event log
 * (what a page following the run is sent) never holds the call's result twice, and ends `done completed`:
 *
 *   after-decision       the survivor runs the approved call (1 run, its own result); a denial stays a denial (0 runs)
 *   after-about-to-run   it never ran: `{"interrupted":true}` (idempotent: run by the survivor, its own result)
 *   after-tool-returned  it ran once: `{"interrupted":true}` (idempotent: run again, 2 runs, its own result)
 *   after-tool-result    it ran once and its result stands
 *
 * One shared phase for every point, so the leases of the killed processes are waited out once: the cards
 * are asked by one healthy process, the crash runs go in waves of AT_ONCE processes, and the restarts
 * come once every lease has lapsed. The crashing processes never continue another's stalled run at their
 * own startup (their resumeStalledAfterMs is an hour): which process recovers a run stays the restart's.
 * Cost: one process start per crash run and a lease TTL, per store (~30 s for SQLite's 55 runs, ~25 s
 * for PostgreSQL's 18, on 2 shared cores).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { openStore } from '../../plugin/index.js';
import type { RunState } from '../../plugin/loop/index.js';
import type { LogFrame } from '../../plugin/store/event-log.js';
import { parseSse } from '../plugin/harness.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';
import { APPROVAL_CRASH_POINTS } from './fixtures/crash-points.js';
import { startAskingModel } from './helpers/asking-model.js';
import { deliveries, maxCopies, toolContent } from './helpers/deliveries.js';
import { leasesLapsed } from './helpers/leases.js';
import {
  auditLines,
  CRASH_SERVER,
  repliedBeforeCrash,
  killAll,
  postCollect,
  spawnServer,
  waves,
  type ServerProcess,
} from './helpers/server-process.js';

type Point = (typeof APPROVAL_CRASH_POINTS)[number];

const RUNS = Number(process.env.HARDENING_APPROVAL_CRASH_RUNS ?? 10);
/**
 * Fewer on PostgreSQL: what happens above the store at each point is the same code SQLite runs RUNS
 * times; these runs are for the store's own part (the run state's writes, the leases, the log) surviving
 * a kill -9.
 */
const POSTGRES_RUNS = Math.ceil(RUNS / 4);
/** One run a group on Redis Cluster (seven in all): every point is still hit, and each variant. */
const CLUSTER_RUNS = Math.ceil(RUNS / 10);
const AT_ONCE = 3;
/** Seconds long, for the reason crash-points.test.ts gives (a renewal delayed past a short TTL loses a live run's lease). */
const LEASE_TTL_MS = 6000;
/** The restarts' resumeStalledAfterMs: longer than the loop's resumeWaitMs (3 s), as the loop requires. */
const STALLED_MS = 3500;
/** The crashing processes': an hour, so their startup sweeps leave the runs killed before them alone. */
const NEVER_MS = 3_600_000;
/** Bound on waiting for what the servers do by themselves (a dead holder's lease lapsing, a sweep). */
const PATIENCE_MS = LEASE_TTL_MS + 30_000;
const NAMESPACE = 'approval';
const INTERRUPTED = '{"interrupted":true}';
const DENY_REASON = 'not on a friday';

interface Group {
  name: string;
  point: Point;
  tool: 'deploy_preview' | 'warm_cache';
  decision: 'approve' | 'deny';
  runs: number;
  /** Runs of the tool across every process once the run settled. */
  ran: number;
  /** Runs of the tool when the crashing process died (what tells the point is where it says). */
  ranBeforeRestart: number;
  /** The result the model gets: the tool's own (undefined) or a fixed one. */
  result?: string;
}

/** The groups of `runs` runs each, and half as many of the idempotent and the deny variants. */
const groupsOf = (RUNS: number, VARIANT_RUNS = Math.max(1, Math.ceil(RUNS / 2))): Group[] => [
  { name: 'after-decision', point: 'after-decision', tool: 'deploy_preview', decision: 'approve', runs: RUNS, ran: 1, ranBeforeRestart: 0 },
  {
    name: 'after-about-to-run',
    point: 'after-about-to-run',
    tool: 'deploy_preview',
    decision: 'approve',
    runs: RUNS,
    ran: 0,
    ranBeforeRestart: 0,
    result: INTERRUPTED,
  },
  {
    name: 'after-tool-returned',
    point: 'after-tool-returned',
    tool: 'deploy_preview',
    decision: 'approve',
    runs: RUNS,
    ran: 1,
    ranBeforeRestart: 1,
    result: INTERRUPTED,
  },
  {
    name: 'after-tool-result',
    point: 'after-tool-result',
    tool: 'deploy_preview',
    decision: 'approve',
    runs: RUNS,
    ran: 1,
    ranBeforeRestart: 1,
  },
  {
    name: 'after-about-to-run, idempotent tool',
    point: 'after-about-to-run',
    tool: 'warm_cache',
    decision: 'approve',
    runs: VARIANT_RUNS,
    ran: 1,
    ranBeforeRestart: 0,
  },
  {
    name: 'after-tool-returned, idempotent tool',
    point: 'after-tool-returned',
    tool: 'warm_cache',
    decision: 'approve',
    runs: VARIANT_RUNS,
    ran: 2,
    ranBeforeRestart: 1,
  },
  {
    name: 'after-decision, denied',
    point: 'after-decision',
    tool: 'deploy_preview',
    decision: 'deny',
    runs: VARIANT_RUNS,
    ran: 0,
    ranBeforeRestart: 0,
    result: JSON.stringify({ denied: true, reason: DENY_REASON }),
  },
];

interface Run {
  group: Group;
  sessionId: string;
  callId: string;
  requestId?: string;
}

/** The tool's own result (fixtures/crash-server.ts, approvalTools). */
const ownResult = (run: Run) => JSON.stringify({ ran: run.group.tool, branch: run.callId });
const expectedResult = (run: Run) => run.group.result ?? ownResult(run);

const eventsOf = (text: string, name: string) =>
  parseSse(text)
    .frames.filter((f) => f.event === name)
    .map((f) => f.data as Record<string, any>);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Message = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

/** Tool calls of the history that do not have exactly one tool message (none: every call answered once). */
function unansweredCalls(messages: readonly Message[]): string[] {
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
  return calls.filter((id) => results.filter((r) => r === id).length !== 1);
}

const atRest = (s: RunState | undefined) =>
  s !== undefined && s.status === 'idle' && !s.owed && !s.approved && !s.lease && !s.paused && s.messages.at(-1)?.role === 'assistant';

describe(`kill -9 at each point of an approved call, ${RUNS} runs each (SQLite)`, () => approvalCrashPoints('sqlite', RUNS));
describe(`kill -9 at each point of an approved call, ${POSTGRES_RUNS} runs each (PostgreSQL)`, () =>
  approvalCrashPoints('postgres', POSTGRES_RUNS));
describe(`kill -9 at each point of an approved call, ${CLUSTER_RUNS} runs each (Redis Cluster)`, () =>
  approvalCrashPoints('redis-cluster', CLUSTER_RUNS));

function approvalCrashPoints(kind: 'sqlite' | 'postgres' | 'redis-cluster', RUNS: number) {
  const GROUPS = groupsOf(RUNS);
  let dir: TempDir;
  let postgres: PostgresServer | undefined;
  let cluster: RedisCluster | undefined;
  let model: ScriptedModel;
  let storeUrl: string;
  let runsFile: string;
  let env: Record<string, string>;
  const outputs: string[] = [];
  const restarts: ServerProcess[] = [];
  const finals = new Map<string, RunState | undefined>();
  /** Each session's event log once settled: what a page following its stream is sent (GET /api/chat/stream). */
  const logs = new Map<string, LogFrame[]>();
  const runs: Run[] = GROUPS.flatMap((group, g) =>
    Array.from({ length: group.runs }, (_, i) => ({ group, sessionId: `appr-s${g}-${i}`, callId: `appr-c${g}-${i}` })),
  );
  let crashed = false;
  let settled = false;

  /** Tool runs recorded per session, across every process so far. */
  const toolRuns = () => {
    const counts = new Map<string, number>();
    for (const line of readFileSync(runsFile, 'utf8').split('\n').filter(Boolean)) {
      const { sessionId } = JSON.parse(line) as { sessionId: string };
      counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
    }
    return counts;
  };
  const readStates = async () => {
    const store = await openStore(storeUrl, { namespace: NAMESPACE });
    try {
      return new Map(
        await Promise.all(
          runs.map(
            // The session's id places its run state (in its slot on Redis Cluster), as the loop writes it.
            async (r) => [r.sessionId, (await store.getState<RunState>(`run:${r.sessionId}`, { sessionId: r.sessionId }))?.value] as const,
          ),
        ),
      );
    } finally {
      await store.close();
    }
  };

  before(async () => {
    dir = await makeTempDir('ask-user-approval-crash-');
    model = await startAskingModel();
    if (kind === 'postgres') postgres = await startPostgresServer();
    if (kind === 'redis-cluster') cluster = await startRedisCluster();
    storeUrl = postgres?.url ?? cluster?.url ?? `sqlite://${dir.file('approval-crash.db')}`;
    runsFile = dir.file('tool-runs.jsonl');
    writeFileSync(runsFile, '');
    env = {
      ASK_USER_STORE: storeUrl,
      STORE_NAMESPACE: NAMESPACE,
      OPENAI_BASE_URL: model.baseURL,
      LEASE_TTL_MS: String(LEASE_TTL_MS),
      APPROVAL_RUNS_FILE: runsFile,
      RESUME_STALLED_AFTER_MS: String(NEVER_MS),
    };
  });
  after(async () => {
    await Promise.all(restarts.map((p) => p.stop()));
    killAll();
    await model.close();
    await postgres?.stop();
    await cluster?.stop();
    await dir.remove();
  });

  it('every card is asked, then its deciding process dies at its point, with nothing of the call on its stream', async () => {
    const healthy = await spawnServer(CRASH_SERVER, env);
    try {
      await Promise.all(
        runs.map(async (run) => {
          const reply = await postCollect(`${healthy.url}/api/chat`, {
            sessionId: run.sessionId,
            message: `call ${run.callId} ${run.group.tool}`,
          });
          const card = eventsOf(reply.text, 'user_input_required')[0];
          assert.equal(card?.mode, 'approval', `asked for approval: ${reply.text}`);
          assert.deepEqual(
            (card.approvals as Array<{ toolCallId: string; tool: string }>).map((a) => [a.toolCallId, a.tool]),
            [[run.callId, run.group.tool]],
          );
          run.requestId = card.id as string;
        }),
      );
    } finally {
      assert.equal((await healthy.stop()).code, 0);
      outputs.push(healthy.stdout());
    }
    assert.equal(toolRuns().size, 0, 'no tool ran before its approval');

    await waves(
      runs,
      AT_ONCE,
      (run) => spawnServer(CRASH_SERVER, { ...env, CRASH_AT: run.group.point }),
      async (run, proc) => {
        const decision =
          run.group.decision === 'approve'
            ? { toolCallId: run.callId, decision: 'approve' }
            : { toolCallId: run.callId, decision: 'deny', reason: DENY_REASON };
        const request = postCollect(`${proc.url}/api/chat/continue`, {
          sessionId: run.sessionId,
          requestId: run.requestId,
          decisions: [decision],
          cancelled: false,
        });
        const reply = await repliedBeforeCrash(proc, request, run.group.point, outputs);
        // Every point comes before the call's result is sent: the page never saw it from this process.
        assert.deepEqual(
          eventsOf(reply.text, 'tool_result').filter((r) => r.toolCallId === run.callId),
          [],
          `tool_result before the kill: ${reply.text}`,
        );
      },
    );

    // What each process left is what its point says.
    const counts = toolRuns();
    const states = await readStates();
    for (const run of runs) {
      const { group } = run;
      const why = `${group.name}, ${run.sessionId}`;
      assert.equal(counts.get(run.sessionId) ?? 0, group.ranBeforeRestart, `tool runs when the process died (${why})`);
      const state = states.get(run.sessionId);
      assert.ok(state, why);
      assert.notEqual(state.status, 'paused', `the decision is saved (${why})`);
      const result = state.messages.find((m: Message) => m.role === 'tool' && m.tool_call_id === run.callId) as Message | undefined;
      const queued = state.approved?.find((a) => a.toolCallId === run.callId);
      if (group.decision === 'deny') {
        assert.equal(result?.content, group.result, `the denial is in the history (${why})`);
        assert.equal(queued, undefined, why);
      } else if (group.point === 'after-decision') {
        assert.deepEqual([result, queued], [undefined, { toolCallId: run.callId, tool: group.tool }], `queued, not started (${why})`);
      } else if (group.point === 'after-tool-result') {
        assert.deepEqual([result?.content, queued], [ownResult(run), undefined], `its result saved (${why})`);
      } else {
        assert.deepEqual([result, queued?.running], [undefined, true], `marked about to run, no result saved (${why})`);
      }
    }
    crashed = true;
  });

  it('the restarts, once the dead leases lapsed, settle every run by their startup sweeps', async () => {
    assert.ok(crashed, 'the crash runs finished');
    const ids = runs.map((r) => r.sessionId);
    await leasesLapsed(storeUrl, NAMESPACE, ids, PATIENCE_MS);
    // A sweep continues a run once its answer is STALLED_MS old (the answer's time is in the run state).
    const newest = Math.max(...[...(await readStates()).values()].map((s) => s?.owed?.since ?? 0));
    await sleep(Math.max(0, newest + STALLED_MS + 250 - Date.now()));

    // Two at once: their sweeps race for the same stalled runs, as instances restarted together do.
    const restartEnv = { ...env, RESUME_STALLED_AFTER_MS: String(STALLED_MS) };
    restarts.push(...(await Promise.all([spawnServer(CRASH_SERVER, restartEnv), spawnServer(CRASH_SERVER, restartEnv)])));
    // Listening means the startup sweep is done; read until every run is at rest all the same.
    let states = await readStates();
    for (const deadline = Date.now() + PATIENCE_MS; runs.some((r) => !atRest(states.get(r.sessionId)));) {
      const restless = runs.filter((r) => !atRest(states.get(r.sessionId))).map((r) => r.sessionId);
      assert.ok(Date.now() < deadline, `runs not at rest ${PATIENCE_MS} ms after the restart: ${restless.join(', ')}`);
      await sleep(200);
      states = await readStates();
    }
    for (const [id, state] of states) finals.set(id, state);
    const store = await openStore(storeUrl, { namespace: NAMESPACE });
    try {
      assert.ok(store.log, 'the store keeps event logs');
      for (const run of runs) {
        const read = await store.log.read(run.sessionId);
        logs.set(run.sessionId, read.kind === 'frames' ? read.frames : []);
      }
    } finally {
      await store.close();
    }

    // Nothing is left to answer: no card is open.
    await Promise.all(
      runs.map(async (run) => {
        const res = await fetch(`${restarts[0]!.url}/api/interactions/pending?sessionId=${run.sessionId}`);
        assert.deepEqual(await res.json(), { pending: null }, run.sessionId);
      }),
    );
    settled = true;
  });

  for (const group of GROUPS) {
    const result = group.result === undefined ? "the tool's own result" : group.result;
    it(`${group.name} × ${group.runs}: ${group.ran} tool run(s) in all, the model handed ${result} once, every call answered`, () => {
      assert.ok(settled, 'the restarts settled the runs');
      const counts = toolRuns();
      for (const run of runs.filter((r) => r.group === group)) {
        const why = run.sessionId;
        assert.equal(counts.get(run.sessionId) ?? 0, group.ran, `tool runs across every process (${why})`);
        const state = finals.get(run.sessionId)!;
        assert.deepEqual(unansweredCalls(state.messages as Message[]), [], `every call in the final history has one result (${why})`);
        const told = deliveries(model.requests, run.callId);
        assert.equal(told.length, 1, `the model was handed the call's result ${told.length} times (${why})`);
        assert.equal(toolContent(told[0]!, run.callId), expectedResult(run), why);
        assert.equal(maxCopies(model.requests, run.callId), 1, `never twice in one history (${why})`);
        // The page's stream: never the call's result twice, never a result the model was not given, and the run's end.
        const frames = logs.get(run.sessionId)!;
        const sent = frames
          .filter((f) => f.event === 'tool_result')
          .map((f) => JSON.parse(f.data) as { toolCallId: string; content: string });
        const ofCall = sent.filter((r) => r.toolCallId === run.callId);
        assert.ok(ofCall.length <= 1, `the stream sent the call's result ${ofCall.length} times (${why})`);
        for (const r of ofCall) assert.equal(r.content, expectedResult(run), why);
        assert.equal(new Set(frames.map((f) => `${f.runId}.${f.seq}`)).size, frames.length, `no frame id twice (${why})`);
        assert.deepEqual(
          [frames.at(-1)?.event, JSON.parse(frames.at(-1)?.data ?? 'null')],
          ['done', { reason: 'completed' }],
          `the stream ends completed (${why})`,
        );
      }
    });
  }

  it('the audit trail across every process says `answered` once per card and the decision once per call', () => {
    assert.ok(settled, 'the restarts settled the runs');
    const lines = [...outputs, ...restarts.map((p) => p.stdout())].flatMap(auditLines);
    for (const run of runs) {
      const answered = lines.filter((e) => e.event === 'answered' && e.requestId === run.requestId);
      assert.equal(answered.length, 1, `answered lines of ${run.sessionId}`);
      const decided = lines.filter((e) => e.toolCallId === run.callId && ['approved', 'denied', 'edited'].includes(e.event as string));
      assert.deepEqual(
        decided.map((e) => [e.event, e.tool]),
        [[run.group.decision === 'approve' ? 'approved' : 'denied', run.group.tool]],
        `decision lines of ${run.sessionId}`,
      );
    }
  });
}
