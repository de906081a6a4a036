/**
 * docs/protocol.md §9.2 end to end (the demo page in Chromium, the demo server, the scripted model), with
 * the raw SSE as evidence: three questions answered on one card; an answer out of bounds refused (by the
 * card before sending, and by the server with 422 naming the question) then fixed; a card with defaults
 * left to expire, where the model gets the expired content, never the defaults.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSuiteBrowser, runCase } from './helpers/acceptance-case.js';
import { option, receipt } from './helpers/demo-page.js';
import { assertToolResultSent, shapeOf } from './helpers/model-evidence.js';
import { echo } from './helpers/turns.js';
import { chatStream, continueStreams, waitForAudit } from './helpers/streams.js';
import type { ScriptedTurn } from '../helpers/scripted-model.js';

after(closeSuiteBrowser);

const PLAN = {
  title: '发布计划：三个问题',
  description: '一次答完，我就开始安排。',
  submitLabel: '按此发布',
  questions: [
    {
      id: 'strategy',
      header: '策略',
      title: '用哪种发布方式？',
      mode: 'single',
      options: [
        { id: 'canary', label: '金丝雀', recommended: true },
        { id: 'all', label: '一次全量' },
      ],
      default: 'canary',
    },
    { id: 'replicas', header: '实例', title: '准备多少个实例？', mode: 'number', min: 1, max: 5, step: 1, default: '3' },
    { id: 'note', header: '备注', title: '发布说明里要写什么？', mode: 'text', required: false, maxLength: 200 },
  ],
};
const askPlan = (id: string): ScriptedTurn => ({
  text: '有三件事要你定。',
  toolCalls: [{ id, name: 'ask_user', arguments: PLAN as unknown as Record<string, unknown> }],
});
const answersContent = (strategy: string, replicas: string, note: string) =>
  JSON.stringify({
    answers: [
      { id: 'strategy', selections: [strategy], customInput: '' },
      { id: 'replicas', selections: [], customInput: replicas },
      { id: 'note', selections: [], customInput: note },
    ],
    cancelled: false,
  });

test('three questions on one card: an out-of-bounds answer is refused by the card and by the server, then fixed; the model gets all three once', () =>
  runCase('several-questions', { turns: [askPlan('call_e2e_plan'), echo()] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我做一个发布计划');
    const card = await chat.openCard();
    const opened = await chatStream(tap);
    const asked = opened.events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, `no user_input_required in the raw chat SSE: ${shapeOf(opened.events).join(', ')}`);
    assert.equal(asked.data.mode, 'form');
    assert.deepEqual(
      asked.data.questions.map((q: any) => [q.id, q.required]),
      [
        ['strategy', true],
        ['replicas', true],
        ['note', false],
      ],
    );
    c.note('userInputRequired', asked.data);
    assert.deepEqual(await card.locator('[part~="header"]').allInnerTexts(), ['策略', '实例', '备注']);

    await option(card, '一次全量').check();
    await card.locator('#q1-field').fill('7');
    await card.locator('#q2-field').fill('周五上线');
    await card.locator('[part~="submit-button"]').click();
    await card.locator('#q1-error-customInput').waitFor();
    await c.evidence.screenshot(chat.page, 'refused-by-card');
    assert.equal(tap.on('/api/chat/continue').length, 0, 'the card sent an answer it knew was out of bounds');

    // The server holds the same rule: the same body sent directly is refused, naming the question.
    const direct = await fetch(`${c.server.url}/api/chat/continue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sessionId: asked.data.sessionId,
        requestId: asked.data.id,
        answers: JSON.parse(answersContent('all', '7', '周五上线')).answers,
        cancelled: false,
      }),
    });
    const directBody = await direct.text();
    c.note('refusedByServer', { status: direct.status, body: directBody });
    assert.equal(direct.status, 422, directBody);
    assert.equal(JSON.parse(directBody).error.field, 'answers[1].customInput');

    await card.locator('#q1-field').fill('5');
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await chat.waitForAssistant('模型收到');
    await c.evidence.screenshot(chat.page, 'answered');
    const text = await receipt(card).innerText();
    for (const expected of ['策略', '一次全量', '实例', '5', '备注', '周五上线'])
      assert.ok(text.includes(expected), `the receipt lacks ${expected}`);

    const [cont] = await continueStreams(tap, 1);
    assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
    const exact = answersContent('all', '5', '周五上线');
    assert.equal(cont!.events.find((e) => e.event === 'tool_result')!.data.content, exact);
    assert.deepEqual(cont!.events[0]!.data.answers, [
      { id: 'strategy', selections: ['all'], customInputLength: 0 },
      { id: 'replicas', selections: [], customInputLength: 1 },
      { id: 'note', selections: [], customInputLength: 4 },
    ]);
    assertToolResultSent(c.model, 1, 'call_e2e_plan', exact);
    const audit = await waitForAudit(c.server, asked.data.id, 'answered');
    assert.equal(audit.mode, 'form');
    assert.doesNotMatch(JSON.stringify(c.server.audit()), /周五上线/, 'free text reached the audit log');
  }));

test('a card with defaults left to expire: the model gets the expired content, never the defaults', () =>
  runCase('several-questions-expiry', { turns: [askPlan('call_e2e_plan_exp'), { text: '好的，重新开始。' }], ttlMs: 6_000 }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我做一个发布计划');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required')!;
    assert.equal(await card.locator('#q1-field').inputValue(), '3', 'the default is pre-filled');
    await receipt(card).waitFor({ timeout: 20_000 });
    await c.evidence.screenshot(chat.page, 'expired');
    await waitForAudit(c.server, asked.data.id, 'expired');
    assert.equal(tap.on('/api/chat/continue').length, 0, 'the defaults were sent as an answer');
    await chat.send('那换个话题');
    await chatStream(tap, 2);
    assertToolResultSent(c.model, 1, 'call_e2e_plan_exp', '{"answers":[],"cancelled":true,"reason":"expired"}');
  }));
