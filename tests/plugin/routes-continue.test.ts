/** Every row of the docs/protocol.md §4 outcome table, over real HTTP, on each store backend. */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError } from '../../plugin/index.js';
import { answer, errorOf, hookedStore, readSse, SINGLE, startApp, type TestApp } from './harness.js';
import { storeCases } from './store-cases.js';

const cases = storeCases();

for (const storeCase of cases) {
  describe(`POST /api/chat/continue (${storeCase.name} store)`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await startApp({ storeCase, authorize: (ctx, sessionId) => ctx.get('x-user') !== 'intruder' || sessionId === 'intruder-s' });
    });
    afterEach(() => t.close());

    it('accepted: 200 event stream with interaction_resolved, tool_result for the toolCallId, the run, done', async () => {
      const rec = await t.ask('s1', SINGLE, 'call_A');
      const res = await t.post(answer('s1', rec.requestId));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const { frames } = await readSse(res);
      assert.deepEqual(
        frames.map((f) => f.event),
        ['interaction_resolved', 'tool_result', 'message_delta', 'done'],
      );
      const resolved = frames[0]!.data as Record<string, unknown>;
      assert.deepEqual(
        { ...resolved, at: undefined },
        { requestId: rec.requestId, toolCallId: 'call_A', status: 'answered', at: undefined, selections: ['safe'], customInputLength: 0 },
      );
      assert.equal(resolved.at, '2030-01-01T00:00:00.000Z');
      assert.deepEqual(frames[1]!.data, {
        toolCallId: 'call_A',
        name: 'ask_user',
        content: '{"selections":["safe"],"customInput":"","cancelled":false}',
        isError: false,
      });
      assert.deepEqual(frames[3]!.data, { reason: 'completed' });
      const stored = await t.store.get(rec.requestId);
      assert.equal(stored?.status, 'answered');
      assert.equal(stored?.toolResultWritten, true);
      assert.equal(t.host!.resumed.length, 1);
    });

    it('passes selections and customInput on as given (multiple + allowCustom)', async () => {
      const rec = await t.ask('s1', {
        title: 'Which?',
        mode: 'multiple',
        allowCustom: true,
        options: [
          { id: 'a', label: 'A' },
          { id: 'b', label: 'B' },
        ],
      });
      const res = await t.post(answer('s1', rec.requestId, { selections: ['b', 'a'], customInput: '  also "c"\nplease ' }));
      assert.equal(res.status, 200);
      const { frames } = await readSse(res);
      const tool = frames.find((f) => f.event === 'tool_result')!.data as { content: string };
      assert.equal(tool.content, JSON.stringify({ selections: ['b', 'a'], customInput: '  also "c"\nplease ', cancelled: false }));
      assert.equal((frames[0]!.data as { customInputLength: number }).customInputLength, '  also "c"\nplease '.length);
    });

    it('cancel: status cancelled, the cancel ToolResult, done cancelled and no model output', async () => {
      const rec = await t.ask('s1');
      // Ignored means ignored: even past the answer's limits (customInput, option id length, count).
      const res = await t.post(
        answer('s1', rec.requestId, {
          cancelled: true,
          selections: ['bogus', 'x'.repeat(200), ...Array.from({ length: 60 }, (_, i) => `o${i}`)],
          customInput: 'ignored '.repeat(1200),
        }),
      );
      assert.equal(res.status, 200);
      const { frames } = await readSse(res);
      assert.deepEqual(
        frames.map((f) => f.event),
        ['interaction_resolved', 'tool_result', 'done'],
      );
      assert.equal((frames[0]!.data as { status: string }).status, 'cancelled');
      assert.deepEqual((frames[0]!.data as { selections: string[] }).selections, []);
      assert.equal((frames[1]!.data as { content: string }).content, '{"selections":[],"customInput":"","cancelled":true}');
      assert.deepEqual(frames[2]!.data, { reason: 'cancelled' });
      assert.equal((await t.store.get(rec.requestId))?.status, 'cancelled');
    });

    it('malformed body: 400 invalid_request, and a malformed requestId never reaches the store', async () => {
      const rec = await t.ask('s1');
      const bad: unknown[] = [
        '{"sessionId":',
        '[1,2]',
        { sessionId: 's1', requestId: rec.requestId, selections: 'safe', customInput: '', cancelled: false },
        { sessionId: 's1', requestId: rec.requestId, selections: [], customInput: '' },
        { sessionId: '', requestId: rec.requestId, selections: [], customInput: '', cancelled: false },
        answer('s1', 'ask_../../etc'),
        answer('s1', 'nope'),
        answer('s1', rec.requestId, { customInput: 'x'.repeat(8001) }),
      ];
      for (const body of bad) {
        const { status, code, body: err } = await errorOf(await t.post(body));
        assert.equal(status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(code, 'invalid_request');
        assert.equal(typeof err.error.message, 'string');
      }
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
      assert.ok(t.audit.entries.filter((e) => e.reason === 'invalid_request').length >= bad.length);
    });

    it('a malformed requestId or session never reaches the store', async () => {
      const calls: string[] = [];
      const spied = await startApp({ storeCase, wrapStore: (s) => hookedStore(s, (m) => void calls.push(m)) });
      try {
        for (const body of [
          answer('s1', 'ask_short'),
          answer('s1', "ask_'; DROP TABLE x; --aaaaaaaaaa"),
          answer('bad session', 'ask_AAAAAAAAAAAAAAAAAAAAAA'),
        ]) {
          assert.equal((await spied.post(body)).status, 400);
        }
        const missing = await fetch(spied.pendingUrl('has space'));
        assert.equal(missing.status, 400);
        assert.deepEqual(calls, []);
      } finally {
        await spied.close();
      }
    });

    it('names the offending field of a malformed body', async () => {
      const rec = await t.ask('s1');
      const { body } = await errorOf(await t.post(answer('s1', rec.requestId, { selections: [1] })));
      assert.equal(body.error.field, 'selections.0');
    });

    it('no body is 400; a non-JSON Content-Type is 415 invalid_request; over 64 KiB is 413 invalid_request', async () => {
      const rec = await t.ask('s1');
      let r = await errorOf(await fetch(t.continueUrl, { method: 'POST' }));
      assert.deepEqual([r.status, r.code], [400, 'invalid_request']);
      r = await errorOf(await t.post('sessionId=s1', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
      assert.deepEqual([r.status, r.code], [415, 'invalid_request']);
      r = await errorOf(await t.post(JSON.stringify(answer('s1', rec.requestId)), { headers: { 'content-type': 'text/plain' } }));
      assert.deepEqual([r.status, r.code], [415, 'invalid_request']);
      r = await errorOf(await t.post('x', { headers: { 'content-type': 'text/x-canary-header-7f3a' } }));
      assert.doesNotMatch(JSON.stringify(r.body), /canary/, 'the client header is not quoted back');
      const big = JSON.stringify({ ...answer('s1', rec.requestId), pad: 'x'.repeat(64 * 1024) });
      r = await errorOf(await t.post(big));
      assert.deepEqual([r.status, r.code], [413, 'invalid_request']);
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
    });

    it('an application/*+json body is read like application/json (the check and the parser agree)', async () => {
      const rec = await t.ask('s1');
      const res = await t.post(JSON.stringify(answer('s1', rec.requestId)), {
        headers: { 'content-type': 'application/vnd.answer+json; charset=utf-8' },
      });
      assert.equal(res.status, 200);
      await readSse(res);
      assert.equal((await t.store.get(rec.requestId))?.status, 'answered');
    });

    it('answer does not fit the stored form: 422 invalid_answer with the field; the interaction stays pending', async () => {
      const rec = await t.ask('s1');
      for (const [over, field] of [
        [{ selections: ['not-an-option'] }, 'selections'],
        [{ selections: ['safe', 'implement'] }, 'selections'],
        [{ selections: [] }, 'selections'],
        [{ customInput: 'free text on a form without allowCustom' }, 'customInput'],
      ] as const) {
        const { status, code, body } = await errorOf(await t.post(answer('s1', rec.requestId, over)));
        assert.deepEqual([status, code, body.error.field], [422, 'invalid_answer', field]);
      }
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
      assert.equal((await t.post(answer('s1', rec.requestId))).status, 200);
    });

    it('checks the stored form, not what the client claims: text mode answers need customInput', async () => {
      const rec = await t.ask('s1', { title: 'Name?', mode: 'text', options: [{ id: 'x', label: 'X' }] });
      const r = await errorOf(await t.post(answer('s1', rec.requestId, { selections: ['x'] })));
      assert.deepEqual([r.status, r.code], [422, 'invalid_answer']);
      const ok = await t.post(answer('s1', rec.requestId, { selections: [], customInput: 'Ada' }));
      assert.equal(ok.status, 200);
      await ok.text();
    });

    it('host authorization refuses: 403 forbidden, nothing consumed', async () => {
      const rec = await t.ask('s1');
      const r = await errorOf(
        await t.post(answer('s1', rec.requestId), { headers: { 'content-type': 'application/json', 'x-user': 'intruder' } }),
      );
      assert.deepEqual([r.status, r.code], [403, 'forbidden']);
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
    });

    it('requestId of another session: 403 session_mismatch; the owner is untouched and can still answer', async () => {
      const rec = await t.ask('owner');
      await t.ask('other');
      const r = await errorOf(await t.post(answer('other', rec.requestId)));
      assert.deepEqual([r.status, r.code], [403, 'session_mismatch']);
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
      const pending = (await (await fetch(t.pendingUrl('owner'))).json()) as any;
      assert.equal(pending.pending.id, rec.requestId);
      assert.equal(pending.pending.status, 'pending');
      const ok = await t.post(answer('owner', rec.requestId));
      assert.equal(ok.status, 200);
      await ok.text();
    });

    it('unknown requestId: 404 not_found', async () => {
      const r = await errorOf(await t.post(answer('s1', 'ask_AAAAAAAAAAAAAAAAAAAAAA')));
      assert.deepEqual([r.status, r.code], [404, 'not_found']);
    });

    it("already answered: 409 already_answered with the first answer's receipt, no second tool result", async () => {
      const rec = await t.ask('s1', SINGLE, 'call_R');
      await (await t.post(answer('s1', rec.requestId))).text();
      t.clock.now += 5000;
      const r = await errorOf(await t.post(answer('s1', rec.requestId, { selections: ['implement'] })));
      assert.deepEqual([r.status, r.code], [409, 'already_answered']);
      assert.deepEqual(r.body.error.receipt, {
        requestId: rec.requestId,
        toolCallId: 'call_R',
        status: 'answered',
        at: '2030-01-01T00:00:00.000Z',
      });
      const c = await errorOf(await t.post(answer('s1', rec.requestId, { cancelled: true })));
      assert.deepEqual([c.status, c.code], [409, 'already_answered']);
      assert.equal(t.host!.resumed.length, 1);
    });

    it('a cancelled question answers a later submit with 409 and a cancelled receipt', async () => {
      const rec = await t.ask('s1');
      await (await t.post(answer('s1', rec.requestId, { cancelled: true }))).text();
      const r = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.deepEqual([r.status, r.code, r.body.error.receipt.status], [409, 'already_answered', 'cancelled']);
    });

    it('state cannot be resumed: 409 not_resumable, checked before the claim so nothing is consumed', async () => {
      const rec = await t.ask('s1');
      t.host!.resumable = false;
      const r = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.deepEqual([r.status, r.code], [409, 'not_resumable']);
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
      t.host!.resumable = true;
      const ok = await t.post(answer('s1', rec.requestId));
      assert.equal(ok.status, 200);
      await ok.text();
    });

    it('past expiresAt: 410 expired; the interaction is closed as expired, audited and its run ended', async () => {
      const rec = await t.ask('s1', SINGLE, 'call_E');
      t.clock.now = rec.expiresAt + 1;
      const r = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.deepEqual([r.status, r.code], [410, 'expired']);
      const stored = await t.store.get(rec.requestId);
      assert.equal(stored?.status, 'expired');
      assert.equal(stored?.resolution?.status, 'expired');
      assert.equal(t.host!.closedCalls.length, 1);
      assert.equal(t.host!.closedCalls[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}');
      assert.equal(t.audit.entries.filter((e) => e.event === 'expired').length, 1);
      const again = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.deepEqual([again.status, again.code], [410, 'expired']);
      assert.equal(t.host!.closedCalls.length, 1, 'closed once');
    });

    it('exactly at expiresAt the question is expired', async () => {
      const rec = await t.ask('s1');
      t.clock.now = rec.expiresAt;
      const r = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.equal(r.status, 410);
    });
  });
}

describe('POST /api/chat/continue with the store unreachable', () => {
  let t: TestApp;
  let failing: Set<string>;
  beforeEach(async () => {
    failing = new Set();
    t = await startApp({
      wrapStore: (s) =>
        hookedStore(s, (method) => {
          if (failing.has(method)) throw new StoreUnavailableError(`${method} timed out`);
        }),
    });
  });
  afterEach(() => t.close());

  for (const method of ['get', 'claim']) {
    it(`503 store_unavailable when ${method} fails; nothing consumed, a retry succeeds`, async () => {
      const rec = await t.ask('s1');
      failing.add(method);
      const r = await errorOf(await t.post(answer('s1', rec.requestId)));
      assert.deepEqual([r.status, r.code], [503, 'store_unavailable']);
      failing.clear();
      assert.equal((await t.store.get(rec.requestId))?.status, 'pending');
      const ok = await t.post(answer('s1', rec.requestId));
      assert.equal(ok.status, 200);
      await ok.text();
      assert.ok(t.audit.entries.some((e) => e.event === 'rejected' && e.reason === 'store_unavailable'));
    });
  }

  it('503 when the claim wrote but its reply was lost: the message does not say nothing was consumed, and a retry gets the receipt (409)', async () => {
    await t.close();
    let loseReply = false;
    t = await startApp({
      wrapStore: (s) =>
        new Proxy(s, {
          get(target, p, receiver) {
            const value = Reflect.get(target, p, receiver) as unknown;
            if (p !== 'claim' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
            return async (...args: unknown[]) => {
              const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
              if (loseReply) throw new StoreUnavailableError('claim: the reply was lost');
              return result;
            };
          },
        }),
    });
    const rec = await t.ask('s1');
    loseReply = true;
    const r = await errorOf(await t.post(answer('s1', rec.requestId)));
    assert.deepEqual([r.status, r.code], [503, 'store_unavailable']);
    assert.doesNotMatch(r.body.error.message, /nothing was consumed/);
    assert.match(r.body.error.message, /may or may not be recorded/);
    loseReply = false;
    assert.equal((await t.store.get(rec.requestId))?.status, 'answered', 'the claim was written');
    const again = await errorOf(await t.post(answer('s1', rec.requestId)));
    assert.equal(again.status, 409, 'the retry learns the answer is recorded');
  });

  it('GET pending answers 503 store_unavailable too', async () => {
    failing.add('currentOf');
    const r = await errorOf(await fetch(t.pendingUrl('s1')));
    assert.deepEqual([r.status, r.code], [503, 'store_unavailable']);
  });
});
