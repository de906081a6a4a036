/**
 * Contract §10 end to end: the demo with its own MCP server, the page in Chromium. The model calls the MCP
 * server's `book_meeting`, whose elicitation becomes one card (the mapped form) on the chat stream; it is
 * answered by keyboard only, axe finds nothing on it, and the MCP server receives the typed answer once.
 * A reload while the card is open restores it, and its answer's stream carries the rest of the run. A
 * URL-mode elicitation (`connect_calendar`) is a link card: the host in plain text, and opening the link
 * (a new tab on the MCP server's own page) is the answer.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSuiteBrowser, runCase } from './helpers/acceptance-case.js';
import { receipt } from './helpers/demo-page.js';
import { axeViolations } from './helpers/axe.js';
import { parseSse, shapeOf } from './helpers/model-evidence.js';
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

test('an MCP card survives a reload: the page picks the run in flight up (§11) with its card, answered, and the run goes on in that stream', () =>
  runCase(
    'mcp-elicitation-reload',
    { turns: [{ toolCalls: [{ id: 'call_e2e_reload', name: 'book_meeting', arguments: {} }] }, echo()] },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('约个会');
      // The chat stream stays open while the MCP call waits: the card's id is read from the page.
      const askedId = await (await chat.openCard()).getAttribute('data-request-id');
      assert.match(askedId ?? '', /^ask_/);

      await chat.reload();
      const card = await chat.openCard();
      assert.equal(await card.getAttribute('data-request-id'), askedId, 'the reloaded page shows the same card');
      assert.equal(await card.locator('legend').count(), 4);
      for (const v of await axeViolations(chat.page)) assert.fail(`axe: ${v}`);

      await card.locator('#q0-field').fill('2026-12-11');
      await card.locator('#q1-field').fill('60');
      await card.locator('#q2-option-1').check(); // Bo
      await card.locator('[part~="submit-button"]').click();
      await receipt(card).waitFor();
      await chat.waitForAssistant('模型收到');
      await c.evidence.screenshot(chat.page, 'mcp-after-reload');

      const [cont] = await continueStreams(tap, 1);
      assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'done'], "the answer's stream confirms it");
      // The run went on in the stream the reloaded page picked up (GET /api/chat/stream): the card, then the rest.
      const picked = await tap.waitFor('/api/chat/stream', (x) => x.status === 200 && x.end !== undefined);
      const events = parseSse(tap.body(picked));
      c.note('pickedUpStream', shapeOf(events));
      assert.equal(events.find((e) => e.event === 'user_input_required')?.data.id, askedId);
      const toolResult = events.find((e) => e.event === 'tool_result');
      assert.equal(toolResult?.data.content, 'Booked 60 minutes on 2026-12-11 with bo; invites sent.');
      assert.deepEqual(events.at(-1)!.data, { reason: 'completed' });
      assert.equal(c.model.requests.length, 2, 'the model went on once, after the MCP tool returned');
    },
  ));

test("URL mode in the card: the host in plain text, the link opens the MCP server's page in a new tab, and that is the answer", () =>
  runCase(
    'mcp-elicitation-url',
    { turns: [{ toolCalls: [{ id: 'call_e2e_link', name: 'connect_calendar', arguments: {} }] }, echo()] },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('连接日历');
      const card = await chat.openCard();
      const link = card.locator('[part~="open-link"]');
      const href = (await link.getAttribute('href')) ?? '';
      const host = new URL(href).host;
      assert.match(host, /^127\.0\.0\.1:\d+$/, "the demo MCP server's own page");
      assert.equal((await card.locator('#link-host').innerText()).trim(), `链接将打开：${host}`);
      assert.equal(await link.getAttribute('target'), '_blank');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
      assert.equal(await card.locator('[part~="submit-button"]').count(), 0);
      for (const v of await axeViolations(chat.page)) assert.fail(`axe: ${v}`);
      await c.evidence.screenshot(chat.page, 'link-card');

      const [tab] = await Promise.all([chat.page.context().waitForEvent('page'), link.click()]);
      await tab.waitForLoadState();
      assert.equal(tab.url(), href, 'the new tab opened the link as given');
      assert.match(await tab.locator('h1').innerText(), /Calendar connected/);
      assert.equal(await tab.evaluate(() => window.opener), null, 'the page cannot reach back to the chat');
      await tab.close();

      await receipt(card).waitFor();
      await chat.waitForAssistant('模型收到');
      await c.evidence.screenshot(chat.page, 'link-opened');
      const [cont] = await continueStreams(tap, 1);
      const sent = JSON.parse(cont!.exchange.requestBody ?? '{}');
      assert.deepEqual([sent.selections, sent.customInput, sent.cancelled], [[], '', false], 'the answer carries nothing');
      assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'done']);
      const opened = await chatStream(tap);
      const toolResult = opened.events.find((e) => e.event === 'tool_result' && e.data.toolCallId === 'call_e2e_link');
      assert.equal(toolResult?.data.content, 'The user opened the calendar sign-in page.', 'the MCP server got accept');
    },
  ));
