/**
 * Contract §12 in Chromium, the rows run on the chat runtime only (CI time): an invalid edit refused by the
 * card (nothing sent) and by the server (422 naming the field); "always", after which the tool runs without a
 * card and the page lists it; a reload with the card open; a new message superseding it; a kill -9 between
 * card and answer on SQLite, after which each approved call runs exactly once; and an expiry. All but the
 * expiry share one demo server (the restart runs last on it); the expiry needs a short ASK_USER_TTL_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt, SEL } from '../helpers/demo-page.js';
import { demoAssistant, sharedDemo } from '../helpers/shared-demo.js';
import { shapeOf } from '../helpers/model-evidence.js';
import { auditOf, chatStream, continueStreams, waitForAudit } from '../helpers/streams.js';
import { transcriptOf } from '../helpers/frames.js';
import { axeViolations } from '../helpers/axe.js';
import {
  approvalAsked,
  approvalCard,
  decide,
  deletedContent,
  deniedContent,
  deployedContent,
  postedBody,
  submit,
  toolMessages,
  toolResultFrames,
  toolRuns,
} from '../helpers/approval.js';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('approval — an invalid edit: the card refuses it where it is and sends nothing; the server refuses one 422 with error.field; the card then sends a valid edit', async () =>
  runCase('approval-invalid-edit', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/pay');
    const card = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    const call = asked.approvals[0].toolCallId as string;

    await decide(card, 0, { decision: 'approve', edit: { branch: 'bad branch!' } });
    await submit(card);
    const error = card.locator('[part~="error"]');
    await error.first().waitFor();
    await c.evidence.screenshot(chat.page, 'refused-by-card');
    assert.match(await error.first().innerText(), /不符合此工具接受的参数/);
    assert.equal(await card.locator('#a0-field-0').getAttribute('aria-invalid'), 'true', 'the branch field is not marked invalid');
    await chat.page.waitForLoadState('networkidle');
    assert.equal(tap.on('/api/chat/continue').length, 0, 'the card sent an edit its schema refuses');
    assert.equal(tap.requests.filter((r) => r.path.startsWith('/api/chat/continue')).length, 0);

    // The server checks the same schema: a client that skips the card's check gets 422 naming the field.
    const refusals: Record<string, unknown> = {};
    for (const [name, args, field] of [
      ['environment', { branch: 'feature/pay', environment: 'production' }, 'decisions[0].arguments.environment'],
      ['branch', { branch: 'bad branch!', environment: 'preview' }, 'decisions[0].arguments.branch'],
      ['extra', { branch: 'feature/pay', environment: 'preview', force: true }, 'decisions[0].arguments.force'],
    ] as const) {
      const res = await post(`${c.server.url}/api/chat/continue`, {
        sessionId: asked.sessionId,
        requestId: asked.id,
        decisions: [{ toolCallId: call, decision: 'approve', arguments: args }],
        cancelled: false,
      });
      const body = (await res.json()) as { error: { code: string; field?: string } };
      refusals[name] = { status: res.status, body };
      assert.equal(res.status, 422, `${name}: the server took arguments the tool's schema refuses`);
      assert.equal(body.error.code, 'invalid_answer');
      assert.equal(body.error.field, field, `${name}: error.field`);
    }
    c.note('refusedByServer', refusals);
    assert.deepEqual(toolRuns(c.server, asked.sessionId), {}, 'a refused decision ran the tool');
    assert.equal(c.requests.length, 1, 'a refused decision called the model');

    // Still open: the user fixes the field and the card sends the edit.
    await card.locator('#a0-field-0').fill('feature/pay-v2');
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('已部署');
    const [cont] = await continueStreams(tap, 1);
    assert.equal(cont!.exchange.status, 200);
    assert.deepEqual(postedBody(cont!.exchange).decisions, [
      { toolCallId: call, decision: 'approve', arguments: { branch: 'feature/pay-v2', environment: 'preview' } },
    ]);
    assert.equal(toolMessages(c.requests[1])[call], deployedContent('feature/pay-v2', 'preview'));
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 1 });
  }));

test('approval — "always": approved for the session, the next deploy runs with no card, the page and GET /api/session list the tool; a card for the other tool still comes, and its cancel denies with "cancelled"', async () =>
  runCase('approval-always', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    const allowedLine = chat.page.locator('[data-testid="always-allowed"]');
    assert.equal(await allowedLine.isVisible(), false, 'a new session lists an allowed tool');
    await chat.send('部署 feature/a');
    const card = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the first chat stream');
    await decide(card, 0, { decision: 'approve', always: true });
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('已部署 feature/a');
    assert.match(await receipt(card).innerText(), /已允许，本次会话中始终允许/);
    const [cont] = await continueStreams(tap, 1);
    assert.deepEqual(postedBody(cont!.exchange).decisions, [{ toolCallId: asked.toolCallId, decision: 'approve', always: true }]);
    await allowedLine.filter({ hasText: 'deploy_preview' }).waitFor();
    assert.equal((await allowedLine.innerText()).replace(/\s+/g, ' ').trim(), '本会话始终允许： deploy_preview');
    const view = (await (await fetch(`${c.server.url}/api/session?sessionId=${asked.sessionId}`)).json()) as { alwaysAllowed: string[] };
    assert.deepEqual(view.alwaysAllowed, ['deploy_preview'], 'the session view does not list the tool allowed for the session');

    // The next deploy: no card, the tool runs at once with the model's arguments.
    await chat.send('部署 feature/b');
    const second = await chatStream(tap, 2);
    assert.equal(
      second.events.find((e) => e.event === 'user_input_required'),
      undefined,
      'a card for a tool allowed for the session',
    );
    assert.deepEqual(
      shapeOf(second.events).filter((e) => e !== 'message_delta'),
      ['tool_result', 'done'],
    );
    assert.equal(second.events.find((e) => e.event === 'tool_result')!.data.content, deployedContent('feature/b', 'preview'));
    await chat.waitForAssistant('已部署 feature/b');
    assert.equal(await chat.page.locator(SEL.card).count(), 1, 'a second card appeared');
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 2 });

    // "Always" is per tool: deploy and the suites run, the card asks about delete_branch alone; cancel denies it.
    await chat.send('部署 feature/c 并清理');
    const third = await approvalCard(chat);
    const thirdStream = await chatStream(tap, 3);
    const cleanup = approvalAsked(thirdStream.events, 'the third chat stream');
    assert.deepEqual(
      thirdStream.events.filter((e) => e.event === 'tool_result').map((e) => e.data.name),
      ['deploy_preview', 'list_test_suites'],
      'the calls needing no card ran before it',
    );
    assert.deepEqual(
      cleanup.approvals.map((a: any) => a.tool),
      ['delete_branch'],
    );
    assert.equal(cleanup.title, '允许 1 项操作？');
    await third.locator('[part~="cancel-button"]').click();
    await receipt(third).waitFor();
    const [, cancelled] = await continueStreams(tap, 2);
    assert.deepEqual(postedBody(cancelled!.exchange), {
      sessionId: cleanup.sessionId,
      requestId: cleanup.id,
      decisions: [],
      cancelled: true,
    });
    assert.deepEqual(
      cancelled!.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.name, e.data.content]),
      [['delete_branch', deniedContent('cancelled')]],
    );
    assert.equal(cancelled!.events.at(-1)!.data.reason, 'cancelled');
    const requests = c.requests.length;
    await chat.page.locator(SEL.runStatus, { hasText: 'cancelled' }).waitFor();
    assert.equal(c.requests.length, requests, 'the model was called after a cancel');
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 3 });

    // After a reload the page still says which tool is allowed, from the session view, in either language.
    await chat.reload();
    await allowedLine.filter({ hasText: 'deploy_preview' }).waitFor();
    assert.deepEqual(await axeViolations(chat.page), [], 'axe on the page with the always-allowed line');
    await c.evidence.screenshot(chat.page, 'after-reload');
    await chat.page.locator('#lang').click();
    assert.equal((await allowedLine.innerText()).replace(/\s+/g, ' ').trim(), 'Always allowed: deploy_preview');
    c.note('transcript', await transcriptOf(chat.page));
  }));

test('approval — a reload with the card open: GET pending brings the approval card back with both calls, the history before it is redrawn, and its answer continues the run', async () =>
  runCase('approval-page-refresh', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/r 并清理');
    const first = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    await decide(first, 0, { decision: 'approve' });
    const before = await transcriptOf(chat.page);

    await chat.reload();
    const card = await approvalCard(chat);
    await c.evidence.screenshot(chat.page, 'restored');
    const pending = JSON.parse(tap.body(tap.on('/api/interactions/pending').at(-1)!).toString('utf8'));
    c.note('pendingAfterReload', pending);
    assert.equal(pending.pending?.id, asked.id, 'GET pending did not return the open approval card');
    assert.deepEqual(
      [pending.pending.mode, pending.pending.status, pending.pending.resumable, pending.pending.toolCallId],
      ['approval', 'pending', true, asked.toolCallId],
    );
    assert.deepEqual(pending.pending.approvals, asked.approvals, 'the restored card lists other calls');
    assert.equal(await card.locator('[part~="heading"]').innerText(), '允许 2 项操作？');
    assert.equal(await card.locator('.call').count(), 2);
    assert.deepEqual(await transcriptOf(chat.page), before, 'the redrawn history differs from what the page showed live');

    await decide(card, 0, { decision: 'approve' });
    await decide(card, 1, { decision: 'approve' });
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('执行结果');
    const [cont] = await continueStreams(tap, 1);
    assert.equal(cont!.exchange.status, 200);
    const [deploy, del] = asked.approvals.map((a: any) => a.toolCallId as string);
    const sent = toolMessages(c.requests[1]);
    assert.equal(sent[deploy], deployedContent('feature/r', 'preview'));
    assert.equal(sent[del], deletedContent('old/experiment'));
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 1, delete_branch: 1 });
    assert.equal(tap.on('/api/chat/continue').length, 1, 'reloading sent a decision');
  }));

test('approval — supersede: a new message while the card is open denies every call with "superseded" before the model hears the message; nothing runs', async () =>
  runCase('approval-supersede', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/s 并清理');
    const card = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    const [deploy, del] = asked.approvals.map((a: any) => a.toolCallId as string);

    await chat.send('算了，输出到哪个目录？');
    const second = await chatStream(tap, 2);
    await receipt(card).waitFor();
    await c.evidence.screenshot(chat.page, 'superseded');
    const resolved = second.events.find((e) => e.event === 'interaction_resolved');
    assert.deepEqual([resolved?.data.requestId, resolved?.data.status], [asked.id, 'superseded']);
    assert.deepEqual(
      second.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.toolCallId, e.data.content]),
      [
        [deploy, deniedContent('superseded')],
        [del, deniedContent('superseded')],
      ],
    );
    assert.match(await receipt(card).innerText(), /已被新消息取代/);
    const next = c.requests[1]!;
    const sent = toolMessages(next);
    assert.deepEqual([sent[deploy], sent[del]], [deniedContent('superseded'), deniedContent('superseded')]);
    const at = (pred: (m: Record<string, unknown>) => boolean) => next.messages.findIndex(pred);
    assert.ok(
      at((m) => m.tool_call_id === del) < at((m) => m.role === 'user' && m.content === '算了，输出到哪个目录？'),
      'the superseded ToolResults are not before the new message',
    );
    assert.deepEqual(toolRuns(c.server, asked.sessionId), {}, 'a superseded call ran');
    assert.deepEqual(
      auditOf(c.server, asked.id).map((a) => a.event),
      ['asked', 'superseded'],
    );
    assert.equal(tap.on('/api/chat/continue').length, 0);
    // The new message got its own answer: the assistant asks its question.
    await chat.openCard();
  }));

test('approval — kill -9 between the card and the answer, restart on the same SQLite file: the reloaded card answers, and each approved call runs exactly once', async () =>
  runCase('approval-restart-sqlite', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/crash 并清理');
    await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    const [deploy, del] = asked.approvals.map((a: any) => a.toolCallId as string);
    await c.evidence.screenshot(chat.page, 'before-kill');

    await c.server.kill9();
    await c.server.restart();
    c.note('restart', { store: c.storeUrl, port: c.server.port });
    await chat.reload();
    const card = await approvalCard(chat);
    const pending = JSON.parse(tap.body(tap.on('/api/interactions/pending').at(-1)!).toString('utf8'));
    assert.equal(pending.pending?.id, asked.id, 'after the restart GET pending did not return the approval card');
    assert.equal(pending.pending.resumable, true, 'a persistent store must resume the run');
    await decide(card, 0, { decision: 'approve' });
    await decide(card, 1, { decision: 'approve' });
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('执行结果');
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();

    const frames = toolResultFrames(tap);
    c.note('toolResultFrames', frames);
    const count = (name: string) => frames.filter((f) => f.name === name).length;
    assert.deepEqual(
      [count('list_test_suites'), count('deploy_preview'), count('delete_branch')],
      [1, 1, 1],
      'a tool_result came twice or not at all across the restart',
    );
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 1, delete_branch: 1 }, 'a call ran more or less than once');
    const sent = toolMessages(c.requests.at(-1));
    assert.equal(sent[deploy], deployedContent('feature/crash', 'preview'));
    assert.equal(sent[del], deletedContent('old/experiment'));
    assert.equal(c.requests.length, 2, 'the model was asked again from the user message instead of resumed');
    assert.deepEqual(
      auditOf(c.server, asked.id).map((a) => `${a.event}@${a.generation}`),
      ['asked@0', 'answered@1', 'approved@1', 'approved@1'],
      'audit: asked before the kill, decided on the restarted server',
    );
  }));

const TTL_MS = 6_000;

test('approval — expiry: past ASK_USER_TTL_MS the card says it timed out, a late decision gets 410, nothing runs, and the model gets every call denied with "expired"', () =>
  runCase('approval-expiry', { fallback: demoAssistant(), ttlMs: TTL_MS }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/slow 并清理');
    const card = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    const [deploy, del] = asked.approvals.map((a: any) => a.toolCallId as string);
    const ttl = Date.parse(asked.expiresAt) - Date.now();
    assert.ok(ttl > 0 && ttl <= TTL_MS, `expiresAt ${asked.expiresAt} does not follow ASK_USER_TTL_MS=${TTL_MS}`);

    await receipt(card).waitFor({ timeout: TTL_MS + 10_000 });
    await c.evidence.screenshot(chat.page, 'expired');
    assert.match(await receipt(card).innerText(), /已超时/);
    c.note('expiredAudit', await waitForAudit(c.server, asked.id, 'expired'));
    const late = await post(`${c.server.url}/api/chat/continue`, {
      sessionId: asked.sessionId,
      requestId: asked.id,
      decisions: [
        { toolCallId: deploy, decision: 'approve' },
        { toolCallId: del, decision: 'approve' },
      ],
      cancelled: false,
    });
    const lateBody = await late.text();
    c.note('lateDecision', { status: late.status, body: lateBody });
    assert.equal(late.status, 410, `a late decision was not refused as expired: ${lateBody}`);
    assert.equal(JSON.parse(lateBody).error.code, 'expired');
    assert.equal(tap.on('/api/chat/continue').length, 0, 'the expired card sent a decision');
    assert.deepEqual(toolRuns(c.server, asked.sessionId), {}, 'an expired call ran');

    await chat.send('输出到哪个目录？');
    await chatStream(tap, 2);
    const sent = toolMessages(c.requests[1]);
    assert.deepEqual([sent[deploy], sent[del]], [deniedContent('expired'), deniedContent('expired')]);
    assert.deepEqual(toolRuns(c.server, asked.sessionId), {});
  }));
