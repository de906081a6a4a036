/**
 * Contract §12, the card and its answer: an approval card asked through the kit (as a runtime will ask
 * it), shown by GET pending, answered with `decisions` over real HTTP. The continue route checks them
 * against the stored card (one to one, in order; reasons, edits and "always" only where allowed; edited
 * arguments against the tool's schema, the deepest field named), writes the audit lines `approved`,
 * `edited`, `denied` with argument names and no values, and hands the answer to the host once.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { checkDecisions, deniedResultText, schemaProblem, type ApprovalRequest } from '../../plugin/contract/approval.js';
import type { AskUserForm } from '../../plugin/contract/schema.js';
import { errorOf, readSse, startApp, type TestApp } from './harness.js';

const DEPLOY: ApprovalRequest = {
  toolCallId: 'call_deploy',
  tool: 'deploy_preview',
  title: 'Deploy feature/login to staging',
  arguments: { branch: 'feature/login', environment: 'staging' },
  editable: true,
  allowAlways: true,
  schema: {
    type: 'object',
    properties: { branch: { type: 'string', minLength: 1 }, environment: { enum: ['staging', 'preview'] } },
    required: ['branch', 'environment'],
    additionalProperties: false,
  },
};
const DELETE: ApprovalRequest = {
  toolCallId: 'call_delete',
  tool: 'delete_branch',
  title: 'Delete the branch old/experiment',
  arguments: { branch: 'old/experiment' },
  editable: false,
  allowAlways: false,
};
const CARD: AskUserForm = { title: 'Allow 2 actions?', approvals: [DEPLOY, DELETE] };

const SECRET = 'sk-canary-never-logged';

describe('approval cards (contract §12): the card and its answer', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp({});
  });
  afterEach(() => t.close());

  const ask = async (sessionId: string) => (await t.kit.ask(CARD, { sessionId, toolCallId: DEPLOY.toolCallId })).record;
  const decide = (sessionId: string, requestId: string, decisions: unknown, cancelled = false) =>
    t.post({ sessionId, requestId, decisions, cancelled });

  it('is shown as mode approval with its calls, and takes one decision per call: approve with edits and always, deny with a reason', async () => {
    const record = await ask('a1');
    const pending = (await (await fetch(t.pendingUrl('a1'))).json()) as { pending: Record<string, unknown> };
    assert.equal(pending.pending.mode, 'approval');
    assert.equal(pending.pending.toolCallId, DEPLOY.toolCallId);
    assert.deepEqual(pending.pending.approvals, [DEPLOY, DELETE]);

    const decisions = [
      { toolCallId: DEPLOY.toolCallId, decision: 'approve', arguments: { branch: 'feature/login', environment: 'preview' }, always: true },
      { toolCallId: DELETE.toolCallId, decision: 'deny', reason: `not today ${SECRET}` },
    ];
    const res = await decide('a1', record.requestId, decisions);
    assert.equal(res.status, 200);
    const { frames } = await readSse(res);
    assert.equal(frames[0]!.event, 'interaction_resolved');
    assert.equal((frames[0]!.data as { status: string }).status, 'answered');
    assert.equal(t.host!.resumed.length, 1);
    assert.deepEqual(t.host!.resumed[0]!.answer.decisions, decisions);
    assert.equal(t.host!.resumed[0]!.toolResultContent, JSON.stringify({ decisions, cancelled: false }));

    const lines = t.audit.entries.filter((e) => ['approved', 'edited', 'denied'].includes(e.event));
    assert.deepEqual(
      lines.map((e) => [e.event, e.toolCallId, e.tool, e.argumentKeys]),
      [
        ['edited', DEPLOY.toolCallId, 'deploy_preview', ['branch', 'environment']],
        ['denied', DELETE.toolCallId, 'delete_branch', ['branch']],
      ],
    );
    assert.ok(!JSON.stringify(t.audit.entries).includes(SECRET), 'no reason text in the audit trail');
    assert.ok(!JSON.stringify(t.audit.entries).includes('feature/login'), 'no argument value in the audit trail');
  });

  it('422 invalid_answer with the deepest field for decisions that do not fit the card; the card stays pending', async () => {
    const record = await ask('a2');
    const approve = (over: Record<string, unknown> = {}) => ({ toolCallId: DEPLOY.toolCallId, decision: 'approve', ...over });
    const deny = (over: Record<string, unknown> = {}) => ({ toolCallId: DELETE.toolCallId, decision: 'deny', ...over });
    const cases: Array<[unknown, string]> = [
      [[approve()], 'decisions'],
      [[deny(), approve()], 'decisions[0].toolCallId'],
      [[approve({ decision: 'maybe' }), deny()], 'decisions[0].decision'],
      [[approve({ arguments: { branch: '', environment: 'staging' } }), deny()], 'decisions[0].arguments.branch'],
      [[approve({ arguments: { branch: 'x', environment: 'prod' } }), deny()], 'decisions[0].arguments.environment'],
      [[approve({ arguments: { branch: 'x', environment: 'staging', force: true } }), deny()], 'decisions[0].arguments.force'],
      [[approve(), { toolCallId: DELETE.toolCallId, decision: 'approve', arguments: { branch: 'main' } }], 'decisions[1].arguments'],
      [[approve(), { toolCallId: DELETE.toolCallId, decision: 'approve', always: true }], 'decisions[1].always'],
      [[approve({ reason: 'why not' }), deny()], 'decisions[0].reason'],
      [[approve(), deny({ reason: 'x'.repeat(501) })], 'decisions[1].reason'],
      [[approve({ extra: 1 }), deny()], 'decisions[0].extra'],
    ];
    for (const [decisions, field] of cases) {
      const res = await decide('a2', record.requestId, decisions);
      assert.equal(res.status, 422, `${field}: ${res.status}`);
      const error = await errorOf(res);
      assert.equal(error.code, 'invalid_answer', field);
      assert.equal(error.body.error.field, field);
    }
    assert.equal((await t.store.get(record.requestId))?.status, 'pending');
    // An answer of another kind for an approval card, and decisions for a question card.
    const wrong = await t.post({ sessionId: 'a2', requestId: record.requestId, selections: [], customInput: '', cancelled: false });
    assert.equal(wrong.status, 422);
    const question = await t.ask('a3');
    const res = await decide('a3', question.requestId, []);
    assert.equal(res.status, 422);
    assert.equal((await errorOf(res)).body.error.field, 'decisions');
    // 400 for a body that mixes both.
    const mixed = await t.post({ sessionId: 'a2', requestId: record.requestId, decisions: [], selections: [], cancelled: false });
    assert.equal(mixed.status, 400);
  });

  it('a cancel sends no decisions and is accepted; a second answer gets 409 with the receipt', async () => {
    const record = await ask('a4');
    const res = await decide('a4', record.requestId, [], true);
    assert.equal(res.status, 200);
    const { frames } = await readSse(res);
    assert.equal((frames[0]!.data as { status: string }).status, 'cancelled');
    assert.equal(t.host!.resumed[0]!.toolResultContent, '{"decisions":[],"cancelled":true}');
    const again = await decide('a4', record.requestId, [
      { toolCallId: DEPLOY.toolCallId, decision: 'approve' },
      { toolCallId: DELETE.toolCallId, decision: 'deny' },
    ]);
    assert.equal(again.status, 409);
  });
});

describe('approval rules (plugin/contract/approval.ts)', () => {
  it('a denied call reads exactly {"denied":true,"reason":"…"}', () => {
    assert.equal(deniedResultText('not now'), '{"denied":true,"reason":"not now"}');
    assert.equal(deniedResultText(), '{"denied":true,"reason":""}');
  });

  it('names nested and array fields the way a path reads, and odd keys quoted', () => {
    const schema = {
      type: 'object',
      properties: {
        deep: { type: 'object', properties: { list: { type: 'array', items: { type: 'number' } } } },
        'odd key': { type: 'string' },
      },
    };
    assert.deepEqual(schemaProblem(schema, { deep: { list: [1, 'two'] } })?.path, '.deep.list[1]');
    assert.deepEqual(schemaProblem(schema, { 'odd key': 3 })?.path, '["odd key"]');
    assert.equal(schemaProblem(schema, { deep: { list: [1, 2] } }), undefined);
    assert.equal(schemaProblem(undefined, { anything: true }), undefined);
  });

  it('counts a reason in code points', () => {
    const ok = checkDecisions([DELETE], [{ toolCallId: DELETE.toolCallId, decision: 'deny', reason: '😀'.repeat(500) }]);
    assert.deepEqual(ok, { ok: true });
  });
});
