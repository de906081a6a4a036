/** GET /api/interactions/pending (docs/protocol.md §5): restore after a refresh, expiry receipts, authorization. */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { answer, errorOf, SINGLE, startApp, type TestApp } from './harness.js';

const get = async (t: TestApp, sessionId: string, headers: Record<string, string> = {}) => {
  const res = await fetch(t.pendingUrl(sessionId), { headers });
  return { status: res.status, body: (await res.json()) as any };
};

describe('GET /api/interactions/pending', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp({ authorize: (ctx) => ctx.get('authorization') !== 'Bearer nobody' });
  });
  afterEach(() => t.close());

  it('{ pending: null } for a session without a question', async () => {
    assert.deepEqual(await get(t, 'fresh'), { status: 200, body: { pending: null } });
    const res = await fetch(`${t.url}/api/interactions/pending?sessionId=fresh`);
    assert.equal(res.headers.get('cache-control'), 'no-store', 'an empty answer is a moment too: not cached');
  });

  it('restores the card: the user_input_required data plus status and resumable', async () => {
    const rec = await t.ask('s1', { ...SINGLE, description: 'why', submitLabel: 'Go', allowCustom: true }, 'call_P');
    const { status, body } = await get(t, 's1');
    assert.equal(status, 200);
    assert.deepEqual(body.pending, {
      id: rec.requestId,
      toolCallId: 'call_P',
      sessionId: 's1',
      title: SINGLE.title,
      description: 'why',
      mode: 'single',
      options: SINGLE.options,
      allowCustom: true,
      submitLabel: 'Go',
      expiresAt: new Date(rec.expiresAt).toISOString(),
      resumable: true,
      status: 'pending',
    });
    assert.equal(rec.expiresAt - rec.createdAt, 30 * 60 * 1000);
  });

  it('resumable is false when the host cannot continue the run', async () => {
    await t.ask('s1');
    t.host!.resumable = false;
    const { body } = await get(t, 's1');
    assert.equal(body.pending.status, 'pending');
    assert.equal(body.pending.resumable, false);
  });

  it('an answered question is no longer pending', async () => {
    const rec = await t.ask('s1');
    await (await t.post(answer('s1', rec.requestId))).text();
    assert.deepEqual((await get(t, 's1')).body, { pending: null });
  });

  it('past expiry: closes the question (audit, host.closed) once and still returns it as expired', async () => {
    const rec = await t.ask('s1', SINGLE, 'call_X');
    t.clock.now = rec.expiresAt + 60_000;
    const first = await get(t, 's1');
    assert.equal(first.body.pending.id, rec.requestId);
    assert.equal(first.body.pending.status, 'expired');
    assert.equal(first.body.pending.resumable, false);
    assert.equal((await t.store.get(rec.requestId))?.resolution?.status, 'expired');
    assert.equal(t.host!.closedCalls.length, 1);
    assert.equal(t.host!.closedCalls[0]!.record.toolCallId, 'call_X');
    const second = await get(t, 's1');
    assert.equal(second.body.pending.status, 'expired');
    assert.equal(t.host!.closedCalls.length, 1, 'closed exactly once');
    assert.equal(t.audit.entries.filter((e) => e.event === 'expired').length, 1);
  });

  it('an expired question stays visible for the 24 h retention window, then is gone', async () => {
    const rec = await t.ask('s1');
    t.clock.now = rec.expiresAt + 60_000;
    assert.equal((await get(t, 's1')).body.pending.status, 'expired', 'closed now');
    t.clock.now += 23 * 3600_000;
    assert.equal((await get(t, 's1')).body.pending.status, 'expired');
    t.clock.now += 2 * 3600_000;
    assert.deepEqual((await get(t, 's1')).body, { pending: null });
    const late = await errorOf(await t.post(answer('s1', rec.requestId)));
    assert.equal(late.status, 404);
  });

  it('missing or invalid sessionId: 400 invalid_request', async () => {
    let r = await errorOf(await fetch(`${t.url}/api/interactions/pending`));
    assert.deepEqual([r.status, r.code, r.body.error.field], [400, 'invalid_request', 'sessionId']);
    r = await errorOf(await fetch(`${t.url}/api/interactions/pending?sessionId=`));
    assert.deepEqual([r.status, r.code], [400, 'invalid_request']);
    r = await errorOf(await fetch(`${t.url}/api/interactions/pending?sessionId=a&sessionId=b`));
    assert.deepEqual([r.status, r.code], [400, 'invalid_request']);
  });

  it('host authorization applies: 403 forbidden and nothing revealed', async () => {
    await t.ask('s1');
    const { status, body } = await get(t, 's1', { authorization: 'Bearer nobody' });
    assert.equal(status, 403);
    assert.equal(body.error.code, 'forbidden');
    assert.equal(body.pending, undefined);
  });

  it('a second question in the session supersedes the first: its run gets the superseded ToolResult', async () => {
    const first = await t.ask('s1', SINGLE, 'call_1st');
    const second = await t.ask('s1', SINGLE, 'call_2nd');
    assert.equal((await get(t, 's1')).body.pending.id, second.requestId);
    assert.equal((await t.store.get(first.requestId))?.status, 'superseded');
    assert.equal(t.host!.closedCalls[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}');
    const late = await errorOf(await t.post(answer('s1', first.requestId)));
    assert.deepEqual([late.status, late.code, late.body.error.receipt.status], [409, 'already_answered', 'superseded']);
  });
});
