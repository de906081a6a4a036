/**
 * Contract §12 in Chromium, the rows every runtime runs: one call approved; two calls of one turn, one
 * approved and one denied with a reason, after the call that needs no approval ran; an approval with edited
 * arguments, which the tool runs with. The demo's own tools and scripted assistant, on one demo server the
 * cases share (helpers/shared-demo.ts); axe finds nothing on the open card in each of its states.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt, SEL } from '../helpers/demo-page.js';
import { sharedDemo } from '../helpers/shared-demo.js';
import { shapeOf } from '../helpers/model-evidence.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';
import { transcriptOf } from '../helpers/frames.js';
import { axeViolations } from '../helpers/axe.js';
import {
  approvalAsked,
  approvalCard,
  callArguments,
  decide,
  deniedContent,
  deployedContent,
  postedBody,
  submit,
  toolMessages,
  toolResultFrames,
  toolRuns,
} from '../helpers/approval.js';
import { DEPLOY_PREVIEW_SCHEMA } from '../../../demo/tools.js';

test('approval — one call approved: the card comes in the raw SSE, the page posts one decision, the tool runs once and its result reaches the model and the transcript', async () =>
  runCase('approval-one-call', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/login');
    const card = await approvalCard(chat);
    const opened = await chatStream(tap);
    const asked = approvalAsked(opened.events, 'the chat stream');
    const call = asked.approvals[0];
    assert.equal(asked.title, '允许 1 项操作？', 'the card title is not the kit’s summary');
    assert.deepEqual(asked.approvals, [
      {
        toolCallId: asked.toolCallId,
        tool: 'deploy_preview',
        title: '将分支 feature/login 部署到 preview 环境',
        arguments: { branch: 'feature/login', environment: 'preview' },
        editable: true,
        allowAlways: true,
        schema: DEPLOY_PREVIEW_SCHEMA,
      },
    ]);
    assert.deepEqual(shapeOf(opened.events).slice(-2), ['user_input_required', 'done']);
    assert.equal(opened.events.at(-1)!.data.reason, 'paused');
    assert.equal(c.requests.length, 1, 'the model was called again before the user decided');
    assert.deepEqual(toolRuns(c.server, asked.sessionId), {}, 'deploy_preview ran before it was approved');
    assert.deepEqual(await axeViolations(chat.page), [], 'axe on the open approval card');
    await c.evidence.screenshot(chat.page, 'card-open');

    await decide(card, 0, { decision: 'approve' });
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('已部署');
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();
    await c.evidence.screenshot(chat.page, 'approved');

    const [cont] = await continueStreams(tap, 1);
    const posted = postedBody(cont!.exchange);
    c.note('posted', posted);
    assert.deepEqual(
      posted,
      {
        sessionId: asked.sessionId,
        requestId: asked.id,
        decisions: [{ toolCallId: call.toolCallId, decision: 'approve' }],
        cancelled: false,
      },
      'the page posted another body than §12’s continue body',
    );
    assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'tool_result', 'message_delta', 'done'], 'continue stream order');
    const result = cont!.events.find((e) => e.event === 'tool_result')!.data;
    assert.deepEqual(result, {
      toolCallId: call.toolCallId,
      name: 'deploy_preview',
      content: deployedContent('feature/login', 'preview'),
      isError: false,
    });
    assert.equal(cont!.events.at(-1)!.data.reason, 'completed');
    assert.equal(c.requests.length, 2, 'one model call to ask, one after the decision');
    assert.equal(toolMessages(c.requests[1])[call.toolCallId], deployedContent('feature/login', 'preview'));
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 1 });
    assert.match(await receipt(card).innerText(), /已允许/);
    assert.match(
      await chat.assistantText(),
      /deploy_preview：已部署 feature\/login → preview，地址 https:\/\/preview\.example\.test\/feature-login\/preview/,
    );
    assert.deepEqual(
      auditOf(c.server, asked.id).map((a) => `${a.event}:${a.tool ?? ''}`),
      ['asked:', 'answered:', 'approved:deploy_preview'],
      'audit lines for the card',
    );
  }));

test('approval — two calls of one turn: list_test_suites runs before the card, one call approved and one denied with a reason, each ToolResult as §12 words it', async () =>
  runCase('approval-approve-deny', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/checkout 并清理');
    const card = await approvalCard(chat);
    const opened = await chatStream(tap);
    const asked = approvalAsked(opened.events, 'the chat stream');
    assert.deepEqual(
      shapeOf(opened.events).filter((e) => e !== 'message_delta'),
      ['tool_result', 'user_input_required', 'done'],
      'the call that needs no approval runs before the card, in the same stream',
    );
    const listed = opened.events.find((e) => e.event === 'tool_result')!.data;
    assert.equal(listed.name, 'list_test_suites');
    assert.equal(asked.title, '允许 2 项操作？');
    assert.deepEqual(
      asked.approvals.map((a: any) => [a.tool, a.title, a.editable, a.allowAlways, 'schema' in a]),
      [
        ['deploy_preview', '将分支 feature/checkout 部署到 preview 环境', true, true, true],
        ['delete_branch', '删除分支 old/experiment', false, false, false],
      ],
    );
    assert.equal(asked.toolCallId, asked.approvals[0].toolCallId, 'the card’s toolCallId is not its first call’s');
    const [deploy, del] = asked.approvals.map((a: any) => a.toolCallId as string);
    // The page drew the suites' result before the card.
    const before = await transcriptOf(chat.page);
    assert.deepEqual(before.slice(-2), ['tool-text: 工具 list_test_suites', 'card-item: open']);

    // delete_branch is not editable and may not be allowed for the session: neither control shows for it.
    await decide(card, 1, { decision: 'approve' });
    assert.equal(await card.locator('#a1-always, #a1-edit').count(), 0, 'delete_branch offers "always" or an edit');
    await decide(card, 0, { decision: 'approve' });
    await decide(card, 1, { decision: 'deny', reason: '保留给 QA 测试' });
    assert.deepEqual(await axeViolations(chat.page), [], 'axe on the approval card with a denial’s reason field');
    await c.evidence.screenshot(chat.page, 'decided');
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('执行结果');
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();
    await c.evidence.screenshot(chat.page, 'answered');

    const [cont] = await continueStreams(tap, 1);
    assert.deepEqual(postedBody(cont!.exchange).decisions, [
      { toolCallId: deploy, decision: 'approve' },
      { toolCallId: del, decision: 'deny', reason: '保留给 QA 测试' },
    ]);
    const results = Object.fromEntries(
      cont!.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.toolCallId, [e.data.name, e.data.content]]),
    );
    assert.deepEqual(results, {
      [deploy]: ['deploy_preview', deployedContent('feature/checkout', 'preview')],
      [del]: ['delete_branch', deniedContent('保留给 QA 测试')],
    });
    // The model's next request answers every call of the turn, the denial word for word.
    const sent = toolMessages(c.requests[1]);
    assert.equal(sent[deploy], deployedContent('feature/checkout', 'preview'));
    assert.equal(sent[del], deniedContent('保留给 QA 测试'));
    assert.equal(sent[listed.toolCallId], listed.content);
    assert.deepEqual(toolRuns(c.server, asked.sessionId), { deploy_preview: 1 }, 'the denied call ran');
    const said = await chat.assistantText();
    assert.match(
      said,
      /deploy_preview：已部署 feature\/checkout → preview，地址 https:\/\/preview\.example\.test\/feature-checkout\/preview/,
    );
    assert.match(said, /delete_branch：被拒绝，原因：“保留给 QA 测试”/);
    assert.match(await receipt(card).innerText(), /已允许[\s\S]*已拒绝：保留给 QA 测试/);
    assert.deepEqual(
      auditOf(c.server, asked.id).map((a) => `${a.event}:${a.tool ?? ''}`),
      ['asked:', 'answered:', 'approved:deploy_preview', 'denied:delete_branch'],
    );
    c.note('transcript', await transcriptOf(chat.page));
  }));

test('approval — an edited call: the card’s edit form changes branch and environment, and the tool runs with exactly what the user approved', async () =>
  runCase('approval-edit', { shared: await sharedDemo() }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('部署 feature/search');
    const card = await approvalCard(chat);
    const asked = approvalAsked((await chatStream(tap)).events, 'the chat stream');
    const call = asked.approvals[0].toolCallId as string;
    await decide(card, 0, { decision: 'approve', edit: { branch: 'feature/search-v2', environment: 'staging' } });
    assert.deepEqual(await axeViolations(chat.page), [], 'axe on the approval card with its edit form open');
    await c.evidence.screenshot(chat.page, 'editing');
    await submit(card);
    await receipt(card).waitFor();
    await chat.waitForAssistant('已部署');
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();

    const [cont] = await continueStreams(tap, 1);
    const edited = { branch: 'feature/search-v2', environment: 'staging' };
    assert.deepEqual(postedBody(cont!.exchange).decisions, [{ toolCallId: call, decision: 'approve', arguments: edited }]);
    const result = cont!.events.find((e) => e.event === 'tool_result')!.data;
    assert.equal(result.content, deployedContent('feature/search-v2', 'staging'), 'the tool did not get the edited arguments');
    assert.deepEqual(callArguments(c.requests[1], call), edited, 'the model’s history does not hold the approved arguments in the call');
    assert.equal(toolMessages(c.requests[1])[call], deployedContent('feature/search-v2', 'staging'));
    assert.deepEqual(
      toolResultFrames(tap).map((r) => r.name),
      ['deploy_preview'],
      'one tool_result on the wire',
    );
    assert.match(
      await chat.assistantText(),
      /已部署 feature\/search-v2 → staging，地址 https:\/\/preview\.example\.test\/feature-search-v2\/staging/,
    );
    assert.match(await receipt(card).innerText(), /已允许（参数已修改）/);
    const audit = auditOf(c.server, asked.id);
    assert.deepEqual(
      audit.map((a) => `${a.event}:${a.tool ?? ''}`),
      ['asked:', 'answered:', 'edited:deploy_preview'],
    );
    assert.ok(!JSON.stringify(audit).includes('search-v2'), 'an audit line quotes an argument value');
    c.note('transcript', await transcriptOf(chat.page));
  }));
