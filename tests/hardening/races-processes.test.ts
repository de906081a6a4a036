/**
 * Exactly-once across processes through the HTTP route: four agent server processes share one store
 * (a SQLite file, a Redis, a PostgreSQL, then a Redis Cluster), and one question gets 25 different answers at each of
 * them at once. One 200 overall; its ToolResult, the stored answer and what the model is handed are that
 * winner's, the model is handed it once, and the four audit trails hold one `answered` between them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../plugin/index.js';
import { parseSse } from '../plugin/harness.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';
import { startAskingModel } from './helpers/asking-model.js';
import { deliveries, maxCopies, toolContent } from './helpers/deliveries.js';
import { keepAliveAgent, postJson } from './helpers/keep-alive.js';
import { auditLines, CRASH_SERVER, killAll, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { storeKinds } from './helpers/stores.js';

const PROCESSES = 4;
const EACH = 25;
const ROUNDS = 3;
const KINDS = ['sqlite', 'redis', 'postgres', 'redis-cluster'] as const;
const kinds = storeKinds(KINDS);

for (const kind of KINDS) {
  describe(`${PROCESSES} server processes sharing ${kind}`, () => {
    let model: ScriptedModel;
    let servers: ServerProcess[] = [];
    const namespace = `procs-${kind}`;
    before(async () => {
      model = await startAskingModel();
      const env = { ASK_USER_STORE: kinds.url(kind), STORE_NAMESPACE: namespace, OPENAI_BASE_URL: model.baseURL };
      servers = await Promise.all(Array.from({ length: PROCESSES }, () => spawnServer(CRASH_SERVER, env)));
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      killAll();
      await model.close();
    });

    it(`${PROCESSES} × ${EACH} different answers at once, ${ROUNDS} rounds: one 200, the winner's answer everywhere, handed over once`, async () => {
      const agents = servers.map(() => keepAliveAgent(EACH));
      const store = await openStore(kinds.url(kind), { namespace });
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const sessionId = `procs-${round}`;
          const callId = `ask-procs-${kind}-${round}`;
          const chat = await postJson(
            agents[0]!,
            `${servers[round % PROCESSES]!.url}/api/chat`,
            JSON.stringify({ sessionId, message: `ask ${callId}` }),
          );
          const ask = parseSse(chat.text).frames.find((f) => f.event === 'user_input_required')?.data as { id: string } | undefined;
          assert.ok(ask, chat.text);
          const replies = await Promise.all(
            servers.flatMap((server, p) =>
              Array.from({ length: EACH }, (_, i) =>
                postJson(
                  agents[p]!,
                  `${server.url}/api/chat/continue`,
                  JSON.stringify({ sessionId, requestId: ask.id, selections: ['safe'], customInput: `from ${p}-${i}`, cancelled: false }),
                ),
              ),
            ),
          );
          const winners = replies.filter((r) => r.status === 200);
          assert.equal(winners.length, 1, `statuses ${replies.map((r) => r.status).join(',')}`);
          for (const loser of replies.filter((r) => r.status !== 200)) {
            assert.equal(loser.status, 409);
            // A loser that read the record before the claim and asked the host after the winner's resume is
            // told not_resumable instead of already_answered: pinned deterministically by stale-read.test.ts.
            assert.match((JSON.parse(loser.text) as { error: { code: string } }).error.code, /^(already_answered|not_resumable)$/);
          }
          const frames = parseSse(winners[0]!.text).frames;
          const content = (frames.find((f) => f.event === 'tool_result')!.data as { content: string }).content;
          assert.deepEqual(frames.at(-1)?.data, { reason: 'completed' });
          const stored = await store.get(ask.id);
          assert.equal(JSON.stringify(stored?.resolution?.answer), content, "the store holds the winner's answer");
          const told = deliveries(model.requests, callId);
          assert.equal(told.length, 1, 'the model was handed the ToolResult once');
          assert.equal(toolContent(told[0]!, callId), content);
          assert.equal(maxCopies(model.requests, callId), 1);
        }
        // Audit lines are written synchronously before each response; all of them are in by now.
        const answered = servers.flatMap((s) => auditLines(s.stdout())).filter((e) => e.event === 'answered');
        assert.equal(answered.length, ROUNDS, 'one answered audit per question, across all processes');
      } finally {
        await store.close();
        for (const a of agents) a.destroy();
      }
    });
  });
}
