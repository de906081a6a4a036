/** Audit (docs/protocol.md §8): one entry per event, ids and lengths only, never the user's free text. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_EVENTS, consoleAuditLogger } from '../../plugin/index.js';
import { safeAuditLogger } from '../../plugin/core/audit.js';
import { answer, readSse, startApp } from './harness.js';

const CANARY = 'CANARY-7f3a-secret-free-text';

describe('audit entries', () => {
  it('cover asked, answered, cancelled, expired, superseded and rejected, and never contain free text', async () => {
    const t = await startApp({ authorize: (ctx) => ctx.get('x-deny') !== '1' });
    try {
      const form = {
        title: 'Notes?',
        mode: 'single',
        allowCustom: true,
        options: [
          { id: 'a', label: 'A' },
          { id: 'b', label: 'B' },
        ],
      };
      // answered, with free text in the "Other" box
      const q1 = await t.ask('s1', form, 'call_1');
      await readSse(await t.post(answer('s1', q1.requestId, { selections: ['a'], customInput: CANARY })));
      // rejected in every way a client can get it wrong, each carrying the canary
      const q2 = await t.ask('s2', { title: 'Say', mode: 'number' }, 'call_2');
      await t.post(answer('s2', q2.requestId, { selections: [], customInput: CANARY })); // 422
      await t.post(answer('s2', q2.requestId, { selections: [CANARY], customInput: '1' })); // 422 with a bogus id
      await t.post(answer('other', q2.requestId, { selections: [], customInput: CANARY })); // 403 mismatch
      await t.post(answer('s2', q2.requestId, { customInput: CANARY }), { headers: { 'content-type': 'application/json', 'x-deny': '1' } }); // 403
      await t.post({ sessionId: 's2', requestId: CANARY, selections: [], customInput: CANARY, cancelled: 'no' }); // 400
      await t.post(`{"customInput":"${CANARY}"`); // 400 unparsable
      const q6 = await t.ask('s6', form, 'call_6');
      await t.post(answer('s6', q6.requestId, { selections: [CANARY] })); // 422 unknown option
      await t.post(answer('s6', q6.requestId, { selections: ['a', 'a'] })); // 422 duplicate
      await t.post(answer('s1', q1.requestId, { customInput: CANARY })); // 409
      // cancelled
      await readSse(await t.post(answer('s2', q2.requestId, { cancelled: true, customInput: CANARY })));
      // superseded, then expired
      await t.ask('s3', form, 'call_3');
      const q4 = await t.ask('s3', form, 'call_4');
      t.clock.now = q4.expiresAt + 1;
      await t.post(answer('s3', q4.requestId, { customInput: CANARY })); // 410
      // text mode answer is free text too
      t.clock.now = Date.parse('2030-01-01T00:00:00Z');
      const q5 = await t.ask('s5', { title: 'Name?', mode: 'text' }, 'call_5');
      t.clock.now = q5.createdAt + 1;
      await readSse(await t.post(answer('s5', q5.requestId, { selections: [], customInput: CANARY })));

      // an approval card (§12): approved, edited, denied with a reason that is free text too
      const call = (id: string, editable: boolean) => ({
        toolCallId: id,
        tool: 'deploy',
        title: 'Deploy',
        arguments: { branch: 'main' },
        editable,
        allowAlways: false,
        ...(editable ? { schema: { type: 'object', properties: { branch: { type: 'string' } } } } : {}),
      });
      const card = await t.kit.ask(
        { title: 'Allow 3 actions?', approvals: [call('c1', false), call('c2', true), call('c3', false)] },
        { sessionId: 's6', toolCallId: 'c1' },
      );
      const decisions = [
        { toolCallId: 'c1', decision: 'approve' },
        { toolCallId: 'c2', decision: 'approve', arguments: { branch: CANARY } },
        { toolCallId: 'c3', decision: 'deny', reason: CANARY },
      ];
      await readSse(await t.post({ sessionId: 's6', requestId: card.record.requestId, decisions, cancelled: false }));

      const events = new Set(t.audit.entries.map((e) => e.event));
      assert.deepEqual([...events].sort(), [...AUDIT_EVENTS].sort());
      const serialized = JSON.stringify(t.audit.entries);
      assert.equal(serialized.includes(CANARY), false, 'no audit entry may contain the free text');
      assert.equal(serialized.includes('CANARY'), false);

      const answered = t.audit.entries.find((e) => e.event === 'answered' && e.requestId === q1.requestId)!;
      assert.deepEqual(
        { ...answered },
        {
          event: 'answered',
          at: '2030-01-01T00:00:00.000Z',
          sessionId: 's1',
          requestId: q1.requestId,
          toolCallId: 'call_1',
          mode: 'single',
          askedAt: '2030-01-01T00:00:00.000Z',
          expiresAt: new Date(q1.expiresAt).toISOString(),
          selections: ['a'],
          customInputLength: CANARY.length,
        },
      );
      const textAnswer = t.audit.entries.find((e) => e.event === 'answered' && e.requestId === q5.requestId)!;
      assert.equal(textAnswer.customInputLength, CANARY.length);
      const reasons = t.audit.entries.filter((e) => e.event === 'rejected').map((e) => e.reason);
      for (const code of ['invalid_answer', 'session_mismatch', 'forbidden', 'invalid_request', 'already_answered', 'expired']) {
        assert.ok(reasons.includes(code as never), `rejected with ${code}: ${reasons.join(',')}`);
      }
      const bogus = t.audit.entries.find((e) => e.event === 'rejected' && e.reason === 'invalid_answer' && e.requestId === q2.requestId)!;
      assert.deepEqual(bogus.selections ?? [], [], 'ids that are not options of the form are left out');
      for (const e of t.audit.entries) assert.match(e.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      await t.close();
    }
  });

  it('error bodies never echo free text either', async () => {
    const t = await startApp();
    try {
      const q = await t.ask('s1', { title: 'When?', mode: 'date' });
      const c = await t.ask('s7', { title: 'Which?', mode: 'multiple', options: [{ id: 'a', label: 'A' }] });
      const bodies = [
        await (await t.post(answer('s1', q.requestId, { selections: [], customInput: CANARY }))).text(),
        await (await t.post(answer('s1', q.requestId, { selections: [CANARY], customInput: '' }))).text(),
        await (await t.post(answer('s1', q.requestId, { selections: [], customInput: CANARY.repeat(400) }))).text(),
        await (await t.post(answer('s7', c.requestId, { selections: [CANARY] }))).text(),
        await (await t.post(answer('s7', c.requestId, { selections: ['a', CANARY, CANARY] }))).text(),
      ];
      for (const b of bodies) assert.equal(b.includes('CANARY'), false, b);
    } finally {
      await t.close();
    }
  });

  it('the default logger writes one JSON line per entry; a throwing sink never fails the caller', () => {
    const lines: string[] = [];
    consoleAuditLogger((l) => lines.push(l)).audit({ event: 'asked', at: '2030-01-01T00:00:00.000Z', requestId: 'ask_x' });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.includes('\n'), false);
    assert.deepEqual(JSON.parse(lines[0]!), { type: 'ask_user.audit', event: 'asked', at: '2030-01-01T00:00:00.000Z', requestId: 'ask_x' });
    const seen: unknown[] = [];
    const safe = safeAuditLogger(
      {
        audit: () => {
          throw new Error('disk full');
        },
      },
      (e) => seen.push(e),
    );
    safe.audit({ event: 'asked', at: 'x' });
    assert.equal(seen.length, 1);
  });
});
