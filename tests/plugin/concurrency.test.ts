/** Exactly-once consumption under concurrent duplicates, within one server and across two sharing a store. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answer, readSse, startApp } from './harness.js';
import { storeCases } from './store-cases.js';

const cases = storeCases();

for (const storeCase of cases) {
  describe(`concurrent identical submissions (${storeCase.name} store)`, () => {
    it('100 at once: exactly one 200 with exactly one tool_result, 99 × 409 already_answered', async () => {
      const t = await startApp({ storeCase });
      try {
        const rec = await t.ask('s1', undefined, 'call_C');
        const body = JSON.stringify(answer('s1', rec.requestId));
        const responses = await Promise.all(Array.from({ length: 100 }, () => t.post(body)));
        const statuses = responses.map((r) => r.status);
        assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(',')}`);
        let toolResults = 0;
        for (const res of responses) {
          if (res.status === 200) {
            const { frames } = await readSse(res);
            toolResults += frames.filter(
              (f) => f.event === 'tool_result' && (f.data as { toolCallId: string }).toolCallId === 'call_C',
            ).length;
          } else {
            const err = (await res.json()) as { error: { code: string; receipt?: { status: string } } };
            assert.equal(res.status, 409);
            assert.equal(err.error.code, 'already_answered');
            assert.equal(err.error.receipt?.status, 'answered');
          }
        }
        assert.equal(toolResults, 1);
        assert.equal(t.host!.resumed.length, 1);
        assert.equal(t.audit.entries.filter((e) => e.event === 'answered').length, 1);
      } finally {
        await t.close();
      }
    });

    it("an answer and a cancel racing: one wins, the other gets the winner's receipt", async () => {
      const t = await startApp({ storeCase });
      try {
        const rec = await t.ask('s1');
        const [a, b] = await Promise.all([t.post(answer('s1', rec.requestId)), t.post(answer('s1', rec.requestId, { cancelled: true }))]);
        const statuses = [a.status, b.status].sort();
        assert.deepEqual(statuses, [200, 409]);
        const loser = a.status === 409 ? a : b;
        const winner = a.status === 200 ? a : b;
        const receipt = ((await loser.json()) as { error: { receipt: { status: string } } }).error.receipt;
        const { frames } = await readSse(winner);
        assert.equal(receipt.status, (frames[0]!.data as { status: string }).status);
      } finally {
        await t.close();
      }
    });

    if (storeCase.shared) {
      it('across two server instances sharing the store: 2 × 50 at once, exactly one 200', async () => {
        const shared = storeCase.shared!();
        const a = await startApp({ storeCase: shared });
        const b = await startApp({ storeCase: shared });
        try {
          const rec = await a.ask('s1', undefined, 'call_S');
          const body = JSON.stringify(answer('s1', rec.requestId));
          const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).post(body)));
          const ok = responses.filter((r) => r.status === 200);
          assert.equal(ok.length, 1, responses.map((r) => r.status).join(','));
          assert.ok(responses.every((r) => r.status === 200 || r.status === 409));
          await Promise.all(responses.map((r) => r.text()));
          assert.equal(a.host!.resumed.length + b.host!.resumed.length, 1);
        } finally {
          await a.close();
          await b.close();
        }
      });
    }
  });
}
