/**
 * The demo with its own MCP server (ASK_USER_MCP_URL unset), as `npm run demo` runs it: "book a meeting"
 * makes the scripted assistant call the MCP server's `book_meeting`, whose elicitation reaches the card on
 * the chat stream; the answer goes back to the MCP server typed, once, and the run goes on with what the
 * server made of it. "Connect my calendar" calls `connect_calendar`, whose URL-mode elicitation is a link
 * card pointing at the MCP server's own sign-in page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDemoServer } from '../helpers/demo-server.js';
import { postStream, postStreamUntil } from './sse-client.js';

test('book a meeting: the MCP elicitation is one card, its answer reaches the MCP server and the run goes on', async (t) => {
  const demo = await startDemoServer({ env: { ASK_USER_STORE: 'memory', ASK_USER_LOCALE: 'en' } });
  t.after(() => demo.stop());
  const { data: card, rest } = await postStreamUntil(
    `${demo.url}/api/chat`,
    { sessionId: 's-meet', message: 'book a meeting' },
    'user_input_required',
  );
  assert.ok(card, 'the card reached the chat stream');
  assert.equal(card.mode, 'form');
  assert.deepEqual(
    card.questions.map((q: any) => [q.id, q.mode]),
    [
      ['date', 'date'],
      ['duration', 'number'],
      ['attendees', 'multiple'],
      ['invite', 'single'],
    ],
  );
  const answers = [
    { id: 'date', selections: [], customInput: '2026-12-10' },
    { id: 'duration', selections: [], customInput: '45' },
    { id: 'attendees', selections: ['ana', 'chen'], customInput: '' },
    { id: 'invite', selections: ['false'], customInput: '' },
  ];
  const cont = await postStream(`${demo.url}/api/chat/continue`, { sessionId: 's-meet', requestId: card.id, answers, cancelled: false });
  assert.equal(cont.status, 200);
  const chat = await rest;
  const said = chat
    .filter((e) => e.event === 'message_delta')
    .map((e) => e.data.text)
    .join('');
  assert.match(said, /Booked 45 minutes on 2026-12-10 with ana, chen; invites not sent\./, 'the MCP server got typed values');
  assert.deepEqual(chat.at(-1), { event: 'done', data: { reason: 'completed' } });
});

test("connect my calendar: the URL elicitation is a link card to the MCP server's own page; opening it answers accept", async (t) => {
  const demo = await startDemoServer({ env: { ASK_USER_STORE: 'memory', ASK_USER_LOCALE: 'en' } });
  t.after(() => demo.stop());
  const { data: card, rest } = await postStreamUntil(
    `${demo.url}/api/chat`,
    { sessionId: 's-cal', message: 'connect my calendar' },
    'user_input_required',
  );
  assert.equal(card.mode, 'url');
  assert.equal(card.title, 'Connect your calendar / 连接日历');
  const page = await fetch(card.url);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Calendar connected/);
  const cont = await postStream(`${demo.url}/api/chat/continue`, {
    sessionId: 's-cal',
    requestId: card.id,
    selections: [],
    customInput: '',
    cancelled: false,
  });
  assert.equal(cont.status, 200);
  const said = (await rest)
    .filter((e) => e.event === 'message_delta')
    .map((e) => e.data.text)
    .join('');
  assert.match(said, /The user opened the calendar sign-in page\./);
});
