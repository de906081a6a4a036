/**
 * kill -9 at each of the six points of an answer's life (fixtures/crash-server.ts), RUNS times each on
 * one SQLite file, then a quarter as many times (5 by default) on a PostgreSQL server of the file's own,
 * then a tenth (2) on a Redis Cluster of the file's own, three points at a time; each point in a
 * namespace of its own. Every run is its own process that dies at the point; then a
 * fresh process (a restart) must give the user back the card — GET pending while the answer was not yet
 * taken, else a 409 with the receipt of the answer it did take — lose no answer and double none: across
 * every process, the scripted model was handed the ToolResult of that tool call exactly once, with the
 * user's answer, and (a separate test per point) the audit trail says `answered` once.
 *
 * "Handed exactly once" is counted from the model's recorded requests (helpers/deliveries.ts): the run is
 * either continued by the retried continue, or — when the crash came after the claim — the rolled-forward
 * ToolResult reaches the model with the user's next message, or with the restart's startup sweep once the
 * answer is older than the loop's resumeStalledAfterMs (after-resume-start waits out its leases first).
 * Cost, per store: ~1 process start per run, in waves of 3, and a lease TTL each for after-toolresult and
 * after-resume-start (~50-60 s for SQLite's 20 runs a point, ~35-40 s for PostgreSQL's 5, ~13 s for the
 * cluster's 2 with its lease waits overlapping the other points, on 2 shared cores).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSse } from '../plugin/harness.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';
import { ANSWER_CRASH_POINTS, type CrashPoint } from './fixtures/crash-points.js';
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

const RUNS = Number(process.env.HARDENING_CRASH_RUNS ?? 20);
/**
 * Fewer on PostgreSQL: what happens above the store at each point is the same code SQLite runs RUNS
 * times; these runs are for the store's own part (the claim, the leases, the log) surviving a kill -9.
 */
const POSTGRES_RUNS = Math.ceil(RUNS / 4);
/**
 * Fewer still on Redis Cluster (2 by default), for the same reason: each point is hit, by two processes
 * at once. Three points run at a time there, the two whose restart waits out a lease TTL first, so the
 * other four run while they wait (~12 s instead of ~30 s one point after another).
 */
const CLUSTER_RUNS = Math.ceil(RUNS / 10);
const CLUSTER_POINTS_AT_ONCE = 3;
const WAITS_OUT_LEASE: readonly CrashPoint[] = ['after-toolresult', 'after-resume-start'];
const SLOW_POINTS_FIRST = [...WAITS_OUT_LEASE, ...ANSWER_CRASH_POINTS.filter((p) => !WAITS_OUT_LEASE.includes(p))];
const AT_ONCE = 3;
/**
 * Seconds, not hundreds of ms: a live run renews its lease every third of the TTL, and a renewal that a
 * loaded machine delays past the TTL lets the lease lapse under the run, which then stops with
 * session_busy before it reaches its crash point (800 ms failed beside two busy CPU loops). Nothing
 * sleeps for it: the restart waits only as long as a dead runner's lease is really held.
 */
const LEASE_TTL_MS = 8000;
/** Bound on waiting for what the servers will do by themselves (a dead holder's lease lapsing). */
const PATIENCE_MS = LEASE_TTL_MS + 30_000;
const CHAT_PHASE: readonly CrashPoint[] = ['after-persist', 'after-log', 'after-sse'];

const frames = (text: string) => parseSse(text).frames;
const eventsOf = (text: string, name: string) =>
  frames(text)
    .filter((f) => f.event === name)
    .map((f) => f.data as Record<string, any>);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store every process of one describe opens (each point adds a namespace), and how it goes away. */
interface CrashStore {
  url: string;
  remove(): Promise<void>;
}

describe(`kill -9 at each point of an answer, ${RUNS} runs each (SQLite)`, () =>
  crashPoints(RUNS, async () => {
    const dir = await makeTempDir('ask-user-crash-');
    return { url: `sqlite://${dir.file('crash.db')}`, remove: () => dir.remove() };
  }));

describe(`kill -9 at each point of an answer, ${POSTGRES_RUNS} runs each (PostgreSQL)`, () =>
  crashPoints(POSTGRES_RUNS, async () => {
    const postgres = await startPostgresServer();
    return { url: postgres.url, remove: () => postgres.stop() };
  }));

describe(`kill -9 at each point of an answer, ${CLUSTER_RUNS} runs each (Redis Cluster)`, { concurrency: CLUSTER_POINTS_AT_ONCE }, () =>
  crashPoints(
    CLUSTER_RUNS,
    async () => {
      const cluster = await startRedisCluster();
      return { url: cluster.url, remove: () => cluster.stop() };
    },
    SLOW_POINTS_FIRST,
  ),
);

function crashPoints(RUNS: number, start: () => Promise<CrashStore>, points: readonly CrashPoint[] = ANSWER_CRASH_POINTS) {
  let crashStore: CrashStore;
  let model: ScriptedModel;
  before(async () => {
    crashStore = await start();
    model = await startAskingModel();
  });
  after(async () => {
    killAll();
    await model.close();
    await crashStore.remove();
  });

  /** What each point's runs left, for its audit test. */
  const finished = new Map<CrashPoint, { outputs: string[]; requestIds: string[] }>();

  for (const point of points) {
    // One point's tests in order (its audit test reads what its crash test left), whatever the describe around allows.
    describe(point, { concurrency: 1 }, () => {
      it(`${point} × ${RUNS}: the card comes back, 0 answers lost, 0 doubled`, async () => {
        const storeUrl = crashStore.url;
        const env = {
          ASK_USER_STORE: storeUrl,
          STORE_NAMESPACE: point,
          OPENAI_BASE_URL: model.baseURL,
          LEASE_TTL_MS: String(LEASE_TTL_MS),
        };
        const runs = Array.from({ length: RUNS }, (_, i) => ({
          sessionId: `${point}-${i}`,
          callId: `ask-${point}-${i}`,
          answer: { selections: ['implement'], customInput: `typed ${point} ${i}`, cancelled: false },
          requestId: undefined as string | undefined,
        }));
        const outputs: string[] = [];
        const dies = (proc: ServerProcess, request: ReturnType<typeof postCollect>) => repliedBeforeCrash(proc, request, point, outputs);

        if (CHAT_PHASE.includes(point)) {
          await waves(
            runs,
            AT_ONCE,
            () => spawnServer(CRASH_SERVER, { ...env, CRASH_AT: point }),
            async (run, proc) => {
              const reply = await dies(
                proc,
                postCollect(`${proc.url}/api/chat`, { sessionId: run.sessionId, message: `ask ${run.callId}` }),
              );
              const seen = eventsOf(reply.text, 'user_input_required');
              // Before the event: the client saw nothing. After it: the event reached the client, once.
              assert.equal(seen.length, point === 'after-sse' ? 1 : 0, `chat stream before the kill: ${JSON.stringify(reply.text)}`);
              run.requestId = seen[0]?.id;
            },
          );
        } else {
          const healthy = await spawnServer(CRASH_SERVER, env);
          await Promise.all(
            runs.map(async (run) => {
              const reply = await postCollect(`${healthy.url}/api/chat`, { sessionId: run.sessionId, message: `ask ${run.callId}` });
              run.requestId = eventsOf(reply.text, 'user_input_required')[0]?.id;
              assert.ok(run.requestId, `asked: ${reply.text}`);
            }),
          );
          assert.equal((await healthy.stop()).code, 0);
          outputs.push(healthy.stdout());
          await waves(
            runs,
            AT_ONCE,
            () => spawnServer(CRASH_SERVER, { ...env, CRASH_AT: point }),
            async (run, proc) => {
              const reply = await dies(
                proc,
                postCollect(`${proc.url}/api/chat/continue`, { sessionId: run.sessionId, requestId: run.requestId, ...run.answer }),
              );
              const sent = eventsOf(reply.text, 'tool_result').map((r) => [r.toolCallId, r.content]);
              // Only the resume had sent the tool_result (it runs before the continued model call).
              assert.deepEqual(
                sent,
                point === 'after-resume-start' ? [[run.callId, JSON.stringify(run.answer)]] : [],
                'tool_result before the kill',
              );
            },
          );
        }

        // A lease a killed process held while running lapses after its TTL; only then may the restart act on the session.
        await leasesLapsed(
          storeUrl,
          point,
          runs.map((r) => r.sessionId),
          PATIENCE_MS,
        );
        const restarted = await spawnServer(CRASH_SERVER, env);
        try {
          await Promise.all(
            runs.map(async (run) => {
              const expected = JSON.stringify(run.answer);
              const pending = (await (await fetch(`${restarted.url}/api/interactions/pending?sessionId=${run.sessionId}`)).json()) as {
                pending: Record<string, any> | null;
              };
              if (CHAT_PHASE.includes(point)) {
                // The answer was never given: the card is back, resumable, with the id the client may hold.
                assert.equal(pending.pending?.status, 'pending');
                assert.equal(pending.pending?.resumable, true);
                assert.equal(pending.pending?.toolCallId, run.callId);
                if (run.requestId) assert.equal(pending.pending?.id, run.requestId);
                run.requestId = pending.pending!.id as string;
                const cont = await postCollect(`${restarted.url}/api/chat/continue`, {
                  sessionId: run.sessionId,
                  requestId: run.requestId,
                  ...run.answer,
                });
                assert.equal(cont.status, 200, cont.text);
                assert.deepEqual(
                  eventsOf(cont.text, 'tool_result').map((r) => [r.toolCallId, r.content]),
                  [[run.callId, expected]],
                );
                assert.deepEqual(eventsOf(cont.text, 'done'), [{ reason: 'completed' }], cont.text);
              } else {
                // The answer was taken before the kill: the card is a receipt of it, and a retry is told so.
                assert.equal(pending.pending, null);
                const again = await postCollect(`${restarted.url}/api/chat/continue`, {
                  sessionId: run.sessionId,
                  requestId: run.requestId,
                  ...run.answer,
                });
                assert.equal(again.status, 409, again.text);
                const err = (JSON.parse(again.text) as { error: { code: string; receipt: Record<string, unknown> } }).error;
                assert.equal(err.code, 'already_answered');
                assert.deepEqual(
                  { ...err.receipt, at: undefined },
                  { requestId: run.requestId, toolCallId: run.callId, status: 'answered', at: undefined },
                );
              }
              const whatNext = () => postCollect(`${restarted.url}/api/chat`, { sessionId: run.sessionId, message: 'what next?' });
              let next = await whatNext();
              // A run still finishing on the restarted process may hold the session a moment: not what this
              // test is about, so retry until the session is free.
              for (const deadline = Date.now() + PATIENCE_MS; next.text.includes('"session_busy"') && Date.now() < deadline;) {
                await sleep(250);
                next = await whatNext();
              }
              assert.deepEqual(eventsOf(next.text, 'done'), [{ reason: 'completed' }], `the session goes on: ${next.text}`);

              const told = deliveries(model.requests, run.callId);
              assert.equal(told.length, 1, `the model was handed the ToolResult ${told.length} times`);
              assert.equal(toolContent(told[0]!, run.callId), expected, "with the user's answer");
              assert.equal(maxCopies(model.requests, run.callId), 1, 'never twice in one history');
            }),
          );
        } finally {
          await restarted.stop();
          outputs.push(restarted.stdout());
          finished.set(point, { outputs, requestIds: runs.map((r) => r.requestId!) });
        }
      });

      it(`${point}: the audit trail across every process says \`answered\` once per answer`, () => {
        const done = finished.get(point);
        assert.ok(done, 'the crash runs of this point finished');
        const answered = done.outputs.flatMap(auditLines).filter((e) => e.event === 'answered');
        const counts = done.requestIds.map((id) => answered.filter((e) => e.requestId === id).length);
        assert.deepEqual(
          counts,
          done.requestIds.map(() => 1),
          'answered audit lines per run',
        );
      });
    });
  }
}
