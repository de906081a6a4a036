/** docs/protocol.md, Acceptance row 2: multiple + custom input — selections[] and customInput reach the ToolResult verbatim; the receipt shows them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertToolResultSent, shapeOf } from '../helpers/model-evidence.js';
import { ask, echo, type AskArgs } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';

const TESTS: AskArgs = {
  title: '这次要跑哪些测试？',
  description: '可以多选；有特殊要求写在“其他说明”里。',
  mode: 'multiple',
  options: [
    { id: 'unit', label: 'Unit', description: 'fast, no I/O', recommended: true },
    { id: 'integration', label: 'Integration', description: 'SQLite and Redis stores' },
    { id: 'browser', label: 'Browser', description: 'the card in Chromium' },
    { id: 'e2e', label: 'End-to-end', description: 'page, server and model together' },
  ],
  allowCustom: true,
  submitLabel: '开始测试',
};

// Spaces at both ends, quotes, a backslash, a second line, an emoji and markup: all must arrive untouched.
const TYPED = '  先跑 "e2e"，再跑 browser\\unit\n第二行 <b>不是标记</b> 🚀  ';

test('multiple + custom input: selections[] and customInput arrive verbatim in the ToolResult; the receipt shows both', () =>
  runCase('multiple-custom', { turns: [ask('call_e2e_multi', TESTS), echo()] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我跑一下测试');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');
    assert.equal(asked.data.allowCustom, true);

    // Picked out of display order: the answer lists ids in the options' order.
    await option(card, 'End-to-end').check();
    await option(card, 'Integration').check();
    await card.locator('[part~="custom-input"]').fill(TYPED);
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await chat.waitForAssistant('模型收到');
    await c.evidence.screenshot(chat.page, 'receipt');

    const expected = answerContent(['integration', 'e2e'], TYPED);
    const [cont] = await continueStreams(tap, 1);
    assert.equal(JSON.parse(cont!.exchange.requestBody!).customInput, TYPED, 'the page did not post customInput as typed');
    assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
    const resolved = cont!.events[0]!.data;
    assert.deepEqual(resolved.selections, ['integration', 'e2e']);
    assert.equal(resolved.customInputLength, TYPED.length, 'interaction_resolved carries the length of the free text');
    assert.equal(cont!.events.find((e) => e.event === 'tool_result')!.data.content, expected);

    const sent = assertToolResultSent(c.model, 1, 'call_e2e_multi', expected);
    c.note('toolResultReceivedByModel', sent.messages.at(-1));

    const shown = await receipt(card).innerText();
    assert.match(shown, /已提交/);
    assert.match(shown, /Integration、End-to-end/, `the receipt does not list the chosen labels: ${shown}`);
    assert.ok(
      (await receipt(card).locator('dd').allTextContents()).includes(TYPED),
      `the receipt does not show the typed text verbatim: ${shown}`,
    );
    assert.equal(await receipt(card).locator('b').count(), 0, 'typed markup was rendered as HTML in the receipt');

    const answered = auditOf(c.server, asked.data.id).find((a) => a.event === 'answered');
    assert.ok(answered, 'no answered audit line');
    assert.equal(answered.customInputLength, TYPED.length);
    const output = c.server.output.map((l) => l.text).join('\n');
    assert.ok(!output.includes('不是标记'), 'the free text leaked into the server log');
  }));
