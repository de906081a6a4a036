/**
 * Contract §10 end to end: the demo with its own MCP server, the page in Chromium. The model calls the MCP
 * server's `book_meeting`, whose elicitation becomes one card (the mapped form) on the chat stream; it is
 * answered by keyboard only, axe finds nothing on it, and the MCP server receives the typed answer once.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSuiteBrowser, runCase } from './helpers/acceptance-case.js';
import { receipt } from './helpers/demo-page.js';
import { axeViolations } from './helpers/axe.js';
import { shapeOf } from './helpers/model-evidence.js';
import { echo } from './helpers/turns.js';
import { chatStream, continueStreams } from './helpers/streams.js';

after(closeSuiteBrowser);

test('an MCP elicitation in the card, answered by keyboard only: the MCP server gets typed values, once', () =>
  runCase(
    'mcp-elicitation',
    { turns: [{ toolCalls: [{ id: 'call_e2e_meet', name: 'book_meeting', arguments: {} }] }, echo()] },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('约个会');
      const card = await chat.openCard();
      assert.deepEqual(
        await card
          .locator('legend')
          .allInnerTexts()
          .then((l) => l.map((t) => t.replace(/\s+/g, ' ').trim())),
        ['Day / 日期', 'Minutes / 时长（分钟）', 'Who / 参会人', 'Send invites? / 发送邀请？'],
      );
      for (const v of await axeViolations(chat.page)) assert.fail(`axe: ${v}`);
      await c.evidence.screenshot(chat.page, 'mcp-card');

      // Keyboard only: Tab until the control is focused (a date input has a stop of its own for its picker).
      const press = (key: string) => chat.page.keyboard.press(key);
      const focusedId = () =>
        chat.page.evaluate(() => {
          let el: Element | null = document.activeElement;
          while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
          return el?.id ?? '';
        });
      const tabTo = async (id: string) => {
        for (let i = 0; i < 6 && (await focusedId()) !== id; i++) await press('Tab');
        assert.equal(await focusedId(), id, `Tab reaches #${id}`);
      };
      await tabTo('q0-field');
      await chat.page.keyboard.type('12102026');
      await tabTo('q1-field');
      await press('ControlOrMeta+A');
      await chat.page.keyboard.type('45');
      await tabTo('q2-option-0');
      await press('Space'); // Ana
      await tabTo('q2-option-2');
      await press('Space'); // Chen
      await tabTo('q3-option-0');
      await press('ArrowDown'); // 是 (the default) → 否
      await press('Enter');
      await receipt(card).waitFor();
      await chat.waitForAssistant('模型收到');
      await c.evidence.screenshot(chat.page, 'mcp-answered');

      const [cont] = await continueStreams(tap, 1);
      const sent = JSON.parse(cont!.exchange.requestBody ?? '{}');
      c.note('continueBody', sent);
      assert.deepEqual(sent.answers, [
        { id: 'date', selections: [], customInput: '2026-12-10' },
        { id: 'duration', selections: [], customInput: '45' },
        { id: 'attendees', selections: ['ana', 'chen'], customInput: '' },
        { id: 'invite', selections: ['false'], customInput: '' },
      ]);
      assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'done']);
      const opened = await chatStream(tap);
      assert.ok(
        opened.events.some((e) => e.event === 'user_input_required'),
        'the card came on the chat stream',
      );
      const toolResult = opened.events.find((e) => e.event === 'tool_result' && e.data.toolCallId === 'call_e2e_meet');
      assert.equal(toolResult?.data.content, 'Booked 45 minutes on 2026-12-10 with ana, chen; invites not sent.');
      assert.equal(c.model.requests.length, 2, 'the model went on once, after the MCP tool returned');
    },
  ));
