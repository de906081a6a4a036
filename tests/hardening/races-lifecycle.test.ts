/**
 * A submission racing everything else that can close its question — expiry, a cancel, a new message —
 * over many rounds with shifting head starts: exactly one of them wins, the question gets exactly one
 * ToolResult, the stored status is the winner's, and the loser is told so (409 with the winner's receipt,
 * or 410). First against the plugin's routes on every store (memory, SQLite, Redis, PostgreSQL, Redis
 * Cluster), then end to end through the demo app's loop (memory, SQLite, PostgreSQL, Redis Cluster), where a new message (supersede) races
 * the continue and the model's history must hold one result.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answer, parseSse, startApp, type TestApp } from '../plugin/harness.js';
import { startHarness, type Harness } from '../demo/harness.js';
import { openStore } from '../../plugin/index.js';
import { keepAliveAgent, postJson, send } from './helpers/keep-alive.js';
import { storeKinds } from './helpers/stores.js';
import { startAskingModel } from './helpers/asking-model.js';
import { deliveries, maxCopies, toolContent } from './helpers/deliveries.js';
import type { ScriptedModel } from '../helpers/scripted-model.js';

const ROUNDS = 24;
const kinds = storeKinds(['memory', 'sqlite', 'redis', 'postgres', 'redis-cluster']);

/** Delay one side by 0, 1 or 2 macrotask turns, so each side gets to start first in some rounds. */
const headStart = async (turns: number) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Submitted {
  status: number;
  code?: string;
  receiptStatus?: string;
}

for (const storeCase of kinds.cases) {
  describe(`submission races on the routes (${storeCase.name} store)`, () => {
    let t: TestApp;
    const agent = keepAliveAgent(8);
    before(async () => {
      t = await startApp({ storeCase });
    });
    after(async () => {
      await t.close();
      agent.destroy();
    });

    const submit = async (body: Record<string, unknown>, delay: number): Promise<Submitted> => {
      await headStart(delay);
      const res = await postJson(agent, t.continueUrl, JSON.stringify(body));
      if (res.status === 200) {
        const frames = parseSse(res.text).frames;
        assert.equal(frames.filter((f) => f.event === 'tool_result').length, 1);
        return { status: 200 };
      }
      const err = JSON.parse(res.text) as { error: { code: string; receipt?: { status: string } } };
      return { status: res.status, code: err.error.code, ...(err.error.receipt ? { receiptStatus: err.error.receipt.status } : {}) };
    };

    /** The invariants every race ends with; `closers` is what the non-HTTP side returned. */
    async function assertOneWinner(requestId: string, results: Submitted[], closed: unknown) {
      const stored = await t.store.get(requestId);
      const wins = results.filter((r) => r.status === 200).length + (closed ? 1 : 0);
      assert.equal(wins, 1, `one winner: ${JSON.stringify(results)} closed=${!!closed}`);
      const resumed = t.host!.resumed.filter((r) => r.record.requestId === requestId).length;
      const closedCalls = t.host!.closedCalls.filter((c) => c.record.requestId === requestId).length;
      assert.equal(resumed + closedCalls, 1, 'exactly one ToolResult');
      assert.ok(stored?.resolution, 'resolved');
      for (const r of results.filter((x) => x.status !== 200)) {
        if (stored.resolution.status === 'expired') assert.ok(r.status === 410 && r.code === 'expired', JSON.stringify(r));
        else assert.deepEqual(r, { status: 409, code: 'already_answered', receiptStatus: stored.resolution.status });
      }
      return stored.resolution.status;
    }

    it(`submit vs expiry × ${ROUNDS}: one wins, one ToolResult, the loser gets 410 or 409`, async () => {
      const seen = new Set<string>();
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `exp-${round}`;
        const rec = await t.ask(sessionId);
        const [sub, closed] = await Promise.all([
          submit(answer(sessionId, rec.requestId), round % 3),
          headStart((round + 1) % 3).then(() => t.kit.closeInteraction(rec.requestId, 'expired')),
        ]);
        const status = await assertOneWinner(rec.requestId, [sub], closed);
        assert.equal(status, closed ? 'expired' : 'answered');
        seen.add(status);
      }
      assert.ok(seen.size >= 1);
    });

    it(`submit vs cancel × ${ROUNDS}: one wins, the other gets the winner's receipt`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `can-${round}`;
        const rec = await t.ask(sessionId);
        const results = await Promise.all([
          submit(answer(sessionId, rec.requestId), round % 3),
          submit(answer(sessionId, rec.requestId, { cancelled: true }), (round + 1) % 3),
        ]);
        const status = await assertOneWinner(rec.requestId, results, undefined);
        assert.equal(status, results[0]!.status === 200 ? 'answered' : 'cancelled');
      }
    });

    it(`submit vs supersede × ${ROUNDS}: one wins; a superseded question refuses the answer with its receipt`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `sup-${round}`;
        const rec = await t.ask(sessionId);
        const [sub, closed] = await Promise.all([
          submit(answer(sessionId, rec.requestId), round % 3),
          headStart((round + 1) % 3).then(() => t.kit.supersede(sessionId)),
        ]);
        const status = await assertOneWinner(rec.requestId, [sub], closed);
        assert.equal(status, closed ? 'superseded' : 'answered');
      }
    });

    it(`past expiry × ${ROUNDS}: submit, expireDue and GET pending racing close it once, as expired`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const sessionId = `due-${round}`;
        const rec = await t.ask(sessionId);
        t.clock.now = rec.expiresAt + 1;
        try {
          const [sub, closed, pending] = await Promise.all([
            submit(answer(sessionId, rec.requestId), round % 3),
            headStart((round + 1) % 3).then(() => t.kit.expireDue(sessionId)),
            headStart((round + 2) % 3).then(() => send(agent, 'GET', t.pendingUrl(sessionId))),
          ]);
          assert.equal(sub.status, 410);
          assert.equal(sub.code, 'expired');
          const card = (JSON.parse(pending.text) as { pending: { status: string; resumable: boolean } | null }).pending;
          assert.equal(card?.status, 'expired', 'a refreshed page shows the timeout receipt');
          assert.equal(card?.resumable, false);
          void closed;
          assert.equal((await t.store.get(rec.requestId))?.resolution?.status, 'expired');
          assert.equal(t.host!.closedCalls.filter((c) => c.record.requestId === rec.requestId).length, 1, 'closed exactly once');
          assert.equal(t.audit.entries.filter((e) => e.requestId === rec.requestId && e.event === 'expired').length, 1);
        } finally {
          t.clock.now = Date.parse('2030-01-01T00:00:00.000Z');
        }
      }
    });
  });
}

for (const kind of ['memory', 'sqlite', 'postgres', 'redis-cluster'] as const) {
  describe(`continue vs a new message through the demo loop (${kind} store)`, () => {
    let h: Harness;
    let model: ScriptedModel;
    before(async () => {
      model = await startAskingModel();
      const store = kind === 'memory' ? undefined : await openStore(kinds.url(kind), { namespace: 'lifecycle' });
      h = await startHarness({ model, ...(store ? { store } : {}) });
    });
    after(async () => {
      await h.close();
      if (kind !== 'memory') await h.store.close();
      await model.close();
    });

    it(`× ${ROUNDS / 2}: one resolution, one ToolResult in the model's history, matching the winner`, async () => {
      const agent = keepAliveAgent(4);
      try {
        for (let round = 0; round < ROUNDS / 2; round++) {
          const sessionId = `race-${round}`;
          const callId = `call_race_${kind}_${round}`;
          const chat = await postJson(agent, `${h.url}/api/chat`, JSON.stringify({ sessionId, message: `ask ${callId}` }));
          const ask = parseSse(chat.text).frames.find((f) => f.event === 'user_input_required')!.data as { id: string };
          const [cont, next] = await Promise.all([
            sleep((round % 4) * 6).then(() => postJson(agent, `${h.url}/api/chat/continue`, JSON.stringify(answer(sessionId, ask.id)))),
            sleep(round % 2).then(() =>
              postJson(agent, `${h.url}/api/chat`, JSON.stringify({ sessionId, message: 'never mind, do something else' })),
            ),
          ]);
          const stored = await h.store.get(ask.id);
          const status = stored?.resolution?.status;
          assert.ok(status === 'answered' || status === 'superseded', `resolved as ${status}`);
          if (status === 'answered') assert.equal(cont.status, 200);
          else
            assert.deepEqual(
              [cont.status, (JSON.parse(cont.text) as { error: { receipt: { status: string } } }).error.receipt.status],
              [409, 'superseded'],
            );
          assert.equal(next.status, 200);

          const expected =
            status === 'answered'
              ? JSON.stringify({ selections: ['safe'], customInput: '', cancelled: false })
              : JSON.stringify({ selections: [], customInput: '', cancelled: true, reason: 'superseded' });
          const run = await h.demo.loop.getRun(sessionId);
          const inHistory = run!.messages.filter((m) => m.role === 'tool' && m.tool_call_id === callId);
          assert.deepEqual(
            inHistory.map((m) => m.content),
            [expected],
            "one ToolResult in the run, the winner's",
          );
          assert.equal(maxCopies(model.requests, callId), 1, 'never doubled in what the model saw');
          const told = deliveries(model.requests, callId);
          // The new message may have been refused as session_busy while the continue ran; then only the continue told the model.
          assert.ok(told.length <= 1, `delivered ${told.length} times`);
          for (const body of told) assert.equal(toolContent(body, callId), expected);
          assert.equal((await h.store.get(ask.id))?.toolResultWritten, true);
        }
      } finally {
        agent.destroy();
      }
    });
  });
}
