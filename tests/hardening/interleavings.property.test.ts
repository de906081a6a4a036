/**
 * A fast-check property over interleavings of everything that can touch one question — submit, a
 * duplicate submit, cancel, expiry, supersede (a new message), and GET pending — fired concurrently with
 * generated head starts, on memory, SQLite, Redis, PostgreSQL and Redis Cluster (a quarter of the runs
 * on the last two: 250 take ~1.3 s on PostgreSQL, 1000 took ~4 s, as long as SQLite's and Redis's
 * together). Each run asks a fresh question in a
 * fresh session.
 * Submissions go through the real continue route over keep-alive HTTP; expiry and supersede are the
 * coordinator's own calls (what its expiry timer and a new chat message run). Properties:
 *   - at most one resolution, and exactly one when any op could resolve;
 *   - ToolResults for the question ≤ 1, and = 1 iff it was resolved;
 *   - the stored status, the audit trail and every loser's answer agree with the winner.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { answer, parseSse, startApp, type TestApp } from '../plugin/harness.js';
import { keepAliveAgent, postJson, send } from './helpers/keep-alive.js';
import { storeKinds } from './helpers/stores.js';

const ALL_RUNS = Number(process.env.HARDENING_PROPERTY_RUNS ?? 1000);
const runsOf = (store: string) => (store === 'postgres' || store === 'redis-cluster' ? Math.ceil(ALL_RUNS / 4) : ALL_RUNS);
const OPS = ['submit', 'duplicate', 'cancel', 'expire', 'supersede', 'pending'] as const;
type Op = (typeof OPS)[number];
const RESOLVES: Record<Op, string | undefined> = {
  submit: 'answered',
  duplicate: 'answered',
  cancel: 'cancelled',
  expire: 'expired',
  supersede: 'superseded',
  pending: undefined,
};

const kinds = storeKinds(['memory', 'sqlite', 'redis', 'postgres', 'redis-cluster']);
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

type Outcome = { op: Op; won: boolean; status?: number; code?: string; receipt?: string; card?: 'pending' | 'expired' | 'none' };

for (const storeCase of kinds.cases) {
  describe(`interleavings of one question's lifecycle (${storeCase.name} store)`, () => {
    const RUNS = runsOf(storeCase.name);
    let t: TestApp;
    const agent = keepAliveAgent(16);
    before(async () => {
      t = await startApp({ storeCase });
    });
    after(async () => {
      await t.close();
      agent.destroy();
    });

    it(`${RUNS} runs: at most one resolution, ToolResults = 1 iff resolved, status and losers agree with the winner`, async () => {
      let run = 0;
      const schedule = fc.array(fc.record({ op: fc.constantFrom(...OPS), delay: fc.integer({ min: 0, max: 2 }) }), {
        minLength: 1,
        maxLength: 6,
      });
      await fc.assert(
        fc.asyncProperty(schedule, async (steps) => {
          const sessionId = `prop-${run++}`;
          const rec = await t.ask(sessionId);
          const submitBody = JSON.stringify(answer(sessionId, rec.requestId));
          const perform = async ({ op, delay }: { op: Op; delay: number }): Promise<Outcome> => {
            await turns(delay);
            switch (op) {
              case 'submit':
              case 'duplicate':
              case 'cancel': {
                const body = op === 'cancel' ? JSON.stringify(answer(sessionId, rec.requestId, { cancelled: true })) : submitBody;
                const res = await postJson(agent, t.continueUrl, body);
                if (res.status === 200) {
                  assert.equal(parseSse(res.text).frames.filter((f) => f.event === 'tool_result').length, 1);
                  return { op, won: true, status: 200 };
                }
                const err = (JSON.parse(res.text) as { error: { code: string; receipt?: { status: string } } }).error;
                return { op, won: false, status: res.status, code: err.code, ...(err.receipt ? { receipt: err.receipt.status } : {}) };
              }
              case 'expire':
                return { op, won: (await t.kit.closeInteraction(rec.requestId, 'expired')) !== undefined };
              case 'supersede':
                return { op, won: (await t.kit.supersede(sessionId)) !== undefined };
              case 'pending': {
                const res = await send(agent, 'GET', t.pendingUrl(sessionId));
                assert.equal(res.status, 200, res.text);
                const card = (JSON.parse(res.text) as { pending: { id: string; status: string } | null }).pending;
                if (card) assert.equal(card.id, rec.requestId);
                if (card) assert.match(card.status, /^(pending|expired)$/);
                return { op, won: false, card: card ? (card.status as 'pending' | 'expired') : 'none' };
              }
            }
          };
          const outcomes = await Promise.all(steps.map(perform));

          const winners = outcomes.filter((o) => o.won);
          const couldResolve = steps.some((s) => RESOLVES[s.op] !== undefined);
          assert.equal(winners.length, couldResolve ? 1 : 0, `winners of ${JSON.stringify(steps)}: ${JSON.stringify(outcomes)}`);
          const stored = await t.store.get(rec.requestId);
          const final = winners[0] ? RESOLVES[winners[0].op]! : 'pending';
          assert.equal(stored?.resolution?.status ?? stored?.status, final, "the stored status is the winner's");

          const toolResults =
            t.host!.resumed.filter((r) => r.record.requestId === rec.requestId).length +
            t.host!.closedCalls.filter((c) => c.record.requestId === rec.requestId).length;
          assert.equal(toolResults, winners.length, 'ToolResults = 1 iff resolved');
          const closing = t.audit.entries.filter(
            (e) => e.requestId === rec.requestId && ['answered', 'cancelled', 'expired', 'superseded'].includes(e.event),
          );
          assert.deepEqual(
            closing.map((e) => e.event),
            winners.length ? [final] : [],
            "one closing audit entry, the winner's",
          );

          for (const o of outcomes) {
            if (o.status === undefined || o.status === 200) continue;
            if (final === 'expired') assert.deepEqual([o.status, o.code], [410, 'expired'], JSON.stringify(o));
            else assert.deepEqual([o.status, o.code, o.receipt], [409, 'already_answered', final], JSON.stringify(o));
          }
          // A page refreshed mid-race sees the card, its timeout receipt once expired, or nothing once closed otherwise.
          if (outcomes.some((o) => o.card === 'none')) assert.ok(final !== 'pending' && final !== 'expired', `no card, final ${final}`);
          if (outcomes.some((o) => o.card === 'expired')) assert.equal(final, 'expired');
        }),
        { numRuns: RUNS },
      );
    });
  });
}
