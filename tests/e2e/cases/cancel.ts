/** docs/protocol.md, Acceptance row 3: cancel — the ToolResult says cancelled, the task stops, and the model is not called again (no re-asking). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt } from '../helpers/demo-page.js';
import { CANCEL_CONTENT, assertToolResultSent, shapeOf } from '../helpers/model-evidence.js';
import { APPROACH, ask } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';

test('cancel: cancelled ToolResult for the original call, done{cancelled}, and no further model call in that run', () =>
  runCase('cancel', { turns: [ask('call_e2e_cancel', APPROACH), { text: '新任务已开始。' }] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');

    await card.locator('[part~="cancel-button"]').click();
    await receipt(card).waitFor();
    const [cont] = await continueStreams(tap, 1);
    await c.evidence.screenshot(chat.page, 'cancelled');

    assert.deepEqual(JSON.parse(cont!.exchange.requestBody!), {
      sessionId: asked.data.sessionId,
      requestId: asked.data.id,
      selections: [],
      customInput: '',
      cancelled: true,
    });
    assert.deepEqual(
      shapeOf(cont!.events),
      ['interaction_resolved', 'tool_result', 'done'],
      'the cancel stream must not carry model output or a new question',
    );
    assert.equal(cont!.events[0]!.data.status, 'cancelled');
    assert.deepEqual(cont!.events[1]!.data, { toolCallId: 'call_e2e_cancel', name: 'ask_user', content: CANCEL_CONTENT, isError: false });
    assert.equal(cont!.events[2]!.data.reason, 'cancelled');
    assert.equal(c.model.requests.length, 1, 'the model was called after the user cancelled');
    assert.equal(await chat.page.locator('ask-user-card').count(), 1, 'a second card appeared after cancel');
    assert.match(await receipt(card).innerText(), /已取消[\s\S]*任务已停止，不会再次追问/);

    // The server's view of the run: stopped, with the cancelled ToolResult in its history.
    const session = await (await fetch(`${c.server.url}/api/session?sessionId=${asked.data.sessionId}`)).json();
    c.note('sessionAfterCancel', session);
    assert.notEqual(session.status, 'paused', 'the run is still paused after the cancel');
    const results = session.items.filter(
      (i: { role: string; toolCallId?: string }) => i.role === 'tool' && i.toolCallId === 'call_e2e_cancel',
    );
    assert.deepEqual(
      results.map((r: { text: string }) => r.text),
      [CANCEL_CONTENT],
      'the run history must hold exactly one cancelled ToolResult',
    );

    // The next task carries the cancel in the history the model receives, once.
    await chat.send('换个任务：写一下发布说明');
    await chatStream(tap, 2);
    assert.equal(c.model.requests.length, 2);
    assertToolResultSent(c.model, 1, 'call_e2e_cancel', CANCEL_CONTENT);
    assert.deepEqual(
      auditOf(c.server, asked.data.id).map((a) => a.event),
      ['asked', 'cancelled'],
    );
  }));
