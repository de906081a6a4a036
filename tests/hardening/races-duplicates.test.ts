/**
 * Exactly-once under duplicates, many times over: each round asks a fresh question and fires 100
 * identical submissions at once over keep-alive HTTP; exactly one gets 200 with one tool_result, and the
 * run is resumed once. Then 50 different answers at once: the stored answer and the ToolResult are the
 * winner's. On memory, SQLite, Redis, PostgreSQL and Redis Cluster.
 *
 * Round count: the full 200 rounds per store, a quarter of them (50, still 5000 duplicates) on
 * PostgreSQL, whose 200 rounds cost about as much as SQLite's and would add the most time of any store,
 * and on Redis Cluster, whose store code above the wire is Redis's (its own part is the slot routing and
 * the WAIT for a replica, which 50 rounds exercise as much as 200).
 * Measured on 2 cores: ~30 s for this file (memory 6 s, SQLite 14 s, Redis 8 s, PostgreSQL 3 s) when
 * the machine is otherwise quiet, ~2 minutes when other heavy jobs share the cores; the whole hardening
 * suite stays near 2 minutes at TEST_CONCURRENCY=2. HARDENING_ROUNDS lowers it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answer, parseSse, startApp, type TestApp } from '../plugin/harness.js';
import { keepAliveAgent, postJson } from './helpers/keep-alive.js';
import { storeKinds } from './helpers/stores.js';

const ALL_ROUNDS = Number(process.env.HARDENING_ROUNDS ?? 200);
/** Per store: a quarter on PostgreSQL and Redis Cluster (see above). */
const roundsOf = (store: string) => (store === 'postgres' || store === 'redis-cluster' ? Math.ceil(ALL_ROUNDS / 4) : ALL_ROUNDS);
const DUPLICATES = 100;
const DIFFERENT = 50;
const { cases } = storeKinds(['memory', 'sqlite', 'redis', 'postgres', 'redis-cluster']);

for (const storeCase of cases) {
  describe(`duplicate submissions (${storeCase.name} store)`, () => {
    const ROUNDS = roundsOf(storeCase.name);
    let t: TestApp;
    // One pool of keep-alive connections for the whole file, so rounds measure the route, not TCP setup.
    const agent = keepAliveAgent(DUPLICATES);
    const post = (body: string) => postJson(agent, t.continueUrl, body);
    before(async () => {
      t = await startApp({ storeCase });
    });
    after(async () => {
      await t.close();
      agent.destroy();
    });

    it(`${DUPLICATES} concurrent identical submissions × ${ROUNDS} rounds: one 200, one tool_result, one resume per round`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `dup-${round}`;
        const toolCallId = `call_dup_${round}`;
        const rec = await t.ask(sessionId, undefined, toolCallId);
        const resumedBefore = t.host!.resumed.length;
        const body = JSON.stringify(answer(sessionId, rec.requestId));
        const responses = await Promise.all(Array.from({ length: DUPLICATES }, () => post(body)));
        let ok = 0;
        let toolResults = 0;
        const other: string[] = [];
        for (const res of responses) {
          if (res.status === 200) {
            ok++;
            const { frames } = parseSse(res.text);
            toolResults += frames.filter(
              (f) => f.event === 'tool_result' && (f.data as { toolCallId: string }).toolCallId === toolCallId,
            ).length;
            continue;
          }
          const err = JSON.parse(res.text) as { error: { code: string; receipt?: { requestId: string; status: string } } };
          if (res.status !== 409 || err.error.code !== 'already_answered' || err.error.receipt?.requestId !== rec.requestId) {
            other.push(`${res.status} ${err.error.code}`);
          }
        }
        assert.deepEqual(other, [], `round ${round}: every loser gets 409 already_answered with the receipt`);
        assert.equal(ok, 1, `round ${round}: exactly one 200`);
        assert.equal(toolResults, 1, `round ${round}: exactly one tool_result`);
        assert.equal(t.host!.resumed.length - resumedBefore, 1, `round ${round}: exactly one resume`);
        assert.equal(t.audit.entries.filter((e) => e.requestId === rec.requestId && e.event === 'answered').length, 1);
        assert.equal((await t.store.get(rec.requestId))?.status, 'answered');
      }
    });

    it(`${DIFFERENT} concurrent different answers: the stored answer and the ToolResult are the winner's`, async () => {
      for (let round = 0; round < 5; round++) {
        const sessionId = `diff-${round}`;
        const rec = await t.ask(sessionId, { title: 'Name it', mode: 'text' }, `call_diff_${round}`);
        const bodies = Array.from({ length: DIFFERENT }, (_, i) =>
          JSON.stringify(answer(sessionId, rec.requestId, { selections: [], customInput: `answer-${i}` })),
        );
        const responses = await Promise.all(bodies.map(post));
        const winners = responses.filter((r) => r.status === 200);
        assert.equal(winners.length, 1);
        const { frames } = parseSse(winners[0]!.text);
        const content = (frames.find((f) => f.event === 'tool_result')!.data as { content: string }).content;
        const won = (JSON.parse(content) as { customInput: string }).customInput;
        assert.match(won, /^answer-\d+$/);
        const stored = await t.store.get(rec.requestId);
        assert.equal(stored?.resolution?.answer.customInput, won, "the store holds the winner's answer");
        const resumed = t.host!.resumed.filter((r) => r.record.requestId === rec.requestId);
        assert.equal(resumed.length, 1);
        assert.equal(resumed[0]!.toolResultContent, content, "the ToolResult is the winner's");
        for (const loser of responses.filter((r) => r !== winners[0])) {
          const err = JSON.parse(loser.text) as { error: { code: string; receipt: { status: string; at: string } } };
          assert.equal(err.error.code, 'already_answered');
          assert.equal(err.error.receipt.at, new Date(stored!.resolution!.at).toISOString(), "losers see the winner's receipt");
        }
      }
    });
  });
}
