/** docs/protocol.md, Acceptance row 4: duplicate submission — the second is refused 409 with the first answer's receipt, and no second ToolResult exists. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertToolResultSent, toolMessagesFor } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';

test('duplicate submission: a double click sends once; a replay of the same answer gets 409 already_answered and writes no second ToolResult', () =>
  runCase('duplicate-submission', { turns: [ask('call_e2e_dup', APPROACH), echo(), { text: '(unexpected third call)' }] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');

    await option(card, '直接实现').check();
    await card.locator('[part~="submit-button"]').dblclick();
    await receipt(card).waitFor();
    await chat.waitForAssistant('模型收到');
    const [first] = await continueStreams(tap, 1);
    assert.equal(first!.exchange.status, 200);
    assert.equal(tap.on('/api/chat/continue').length, 1, 'a double click on submit sent two continue requests');

    // The same body again, from the page, as a retrying client or a second tab would send it.
    const replay = await chat.page.evaluate(async (body) => {
      const res = await fetch('/api/chat/continue', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
    }, first!.exchange.requestBody!);
    c.note('replay', replay);
    await c.evidence.screenshot(chat.page, 'after-replay');
    assert.equal(replay.status, 409, `the duplicate was not refused: ${replay.status} ${replay.body}`);
    const refused = JSON.parse(replay.body);
    assert.equal(refused.error.code, 'already_answered');
    assert.equal(refused.error.receipt.requestId, asked.data.id);
    assert.equal(refused.error.receipt.toolCallId, 'call_e2e_dup');
    assert.equal(refused.error.receipt.status, 'answered');
    assert.equal(refused.error.receipt.at, first!.events[0]!.data.at, 'the receipt is not the first answer’s');

    assert.equal(c.model.requests.length, 2, 'the duplicate caused another model call');
    assertToolResultSent(c.model, 1, 'call_e2e_dup', answerContent(['implement'], ''));
    const session = await (await fetch(`${c.server.url}/api/session?sessionId=${asked.data.sessionId}`)).json();
    c.note('session', session);
    const results = session.items.filter(
      (i: { role: string; toolCallId?: string }) => i.role === 'tool' && i.toolCallId === 'call_e2e_dup',
    );
    assert.equal(results.length, 1, `the run history holds ${results.length} ToolResults for call_e2e_dup`);

    // A later turn shows the model's history still holds exactly one result for the call.
    await chat.send('谢谢，继续');
    await chatStream(tap, 2);
    assert.equal(
      toolMessagesFor(c.model.requests[2]!, 'call_e2e_dup').length,
      1,
      'the next model request holds the ToolResult more than once',
    );
    const events = auditOf(c.server, asked.data.id).map((a) => `${a.event}${a.reason ? `:${a.reason}` : ''}`);
    assert.deepEqual(events, ['asked', 'answered', 'rejected:already_answered']);
  }));
