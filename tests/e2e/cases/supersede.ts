/** Supersede (docs/protocol.md §6): a new message while a card is open closes it as superseded; the model sees the closed ToolResult, then the new message. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt } from '../helpers/demo-page.js';
import { assertToolResultSent, closedContent, shapeOf } from '../helpers/model-evidence.js';
import { APPROACH, ask } from '../helpers/turns.js';
import { auditOf, chatStream } from '../helpers/streams.js';

test('supersede: sending a new message closes the open card as superseded, and the model gets the superseded ToolResult before the new message', () =>
  runCase('supersede', { turns: [ask('call_e2e_old', APPROACH), { text: '好的，按新的要求来。' }] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');

    await chat.send('算了，改成只写文档');
    const second = await chatStream(tap, 2);
    await receipt(card).waitFor();
    await chat.waitForAssistant('按新的要求来');
    await c.evidence.screenshot(chat.page, 'superseded');

    const resolved = second.events.find((e) => e.event === 'interaction_resolved');
    assert.ok(resolved, `the new message's stream does not say the old card was resolved: ${shapeOf(second.events).join(', ')}`);
    assert.equal(resolved.data.requestId, asked.data.id);
    assert.equal(resolved.data.status, 'superseded');
    assert.match(await receipt(card).innerText(), /已被新消息取代/, 'the old card does not show the superseded receipt');
    assert.equal(tap.on('/api/chat/continue').length, 0);

    const next = assertToolResultSent(c.model, 1, 'call_e2e_old', closedContent('superseded'));
    const toolAt = next.messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'call_e2e_old');
    const userAt = next.messages.findIndex((m) => m.role === 'user' && m.content === '算了，改成只写文档');
    assert.ok(userAt > toolAt, 'the new message is not after the superseded ToolResult');
    assert.deepEqual(
      auditOf(c.server, asked.data.id).map((a) => a.event),
      ['asked', 'superseded'],
    );

    // After a reload the redrawn history says it in the card's words, not a wording of its own.
    await chat.reload();
    const historic = chat.page.locator('[data-testid="historic-receipt"]');
    await historic.first().waitFor();
    const status = (await historic.first().locator('.receipt-status').innerText()).trim();
    assert.equal(status, '已被新消息取代', 'the redrawn receipt words the superseded card differently from the live one');
  }));
