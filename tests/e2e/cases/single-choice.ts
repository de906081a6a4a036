/** docs/protocol.md, Acceptance row 1: single choice — raw SSE carries user_input_required; the same toolCallId gets its ToolResult; the model continues. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertHistoryExtends, assertToolResultSent, parseSse, shapeOf } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';

test('single choice: the chosen id reaches the model as the ToolResult of the original call, and the run continues', () =>
  runCase('single-choice', { turns: [ask('call_e2e_single', APPROACH), echo()] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();

    const opened = await chatStream(tap);
    const asked = opened.events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, `no user_input_required event in the raw chat SSE; events: ${shapeOf(opened.events).join(', ')}`);
    assert.equal(asked.data.toolCallId, 'call_e2e_single', 'user_input_required names another toolCallId than the model call');
    assert.match(asked.data.id, /^ask_[A-Za-z0-9_-]{22,}$/, 'requestId is not ask_ + ≥128 random bits');
    assert.deepEqual(shapeOf(opened.events).slice(-1), ['done'], 'the chat stream does not end with done');
    assert.equal(opened.events.at(-1)!.data.reason, 'paused');
    assert.equal(c.model.requests.length, 1, 'the model was called again before the user answered');

    await option(card, '先分析').check();
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await chat.waitForAssistant('模型收到');
    await c.evidence.screenshot(chat.page, 'answered');

    assert.match(await receipt(card).innerText(), /已提交[\s\S]*先分析/, 'the receipt does not show 已提交 with the chosen label');
    // Once the continuation stream reached done{completed}, the receipt no longer says 继续执行中….
    await chat.page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
    const note = receipt(card).locator('[part~="receipt-note"]');
    await note.filter({ hasText: '已继续，任务完成' }).waitFor();
    assert.equal(await note.getAttribute('data-run'), 'completed', 'the note does not carry the done reason');
    assert.doesNotMatch(await receipt(card).innerText(), /继续执行中/, 'the receipt still says the run is continuing');
    const [cont] = await continueStreams(tap, 1);
    const body = JSON.parse(cont!.exchange.requestBody ?? '{}');
    assert.deepEqual(
      body,
      { sessionId: asked.data.sessionId, requestId: asked.data.id, selections: ['safe'], customInput: '', cancelled: false },
      'the page posted another body',
    );
    assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'tool_result', 'message_delta', 'done'], 'continue stream order');
    const toolResult = cont!.events.find((e) => e.event === 'tool_result')!.data;
    assert.equal(toolResult.toolCallId, 'call_e2e_single');
    assert.equal(toolResult.content, answerContent(['safe'], ''));
    assert.equal(cont!.events.at(-1)!.data.reason, 'completed');

    assert.equal(c.model.requests.length, 2, `the model got ${c.model.requests.length} requests, expected 2 (ask, continue)`);
    const second = assertToolResultSent(c.model, 1, 'call_e2e_single', answerContent(['safe'], ''));
    assertHistoryExtends(c.model.requests[0]!, second, 'resume');
    c.note('toolResultReceivedByModel', second.messages.at(-1));

    const audit = auditOf(c.server, asked.data.id);
    assert.deepEqual(
      audit.map((a) => a.event),
      ['asked', 'answered'],
      'audit lines for the request',
    );
    assert.deepEqual(audit[1]!.selections, ['safe']);
  }));
