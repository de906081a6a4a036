/**
 * The page's redraw after a reload, from what `GET /api/session` really returns: an ask_user call refused
 * at interception was never shown, so it is redrawn as nothing; questions the user saw keep their receipts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyEntries, pastQuestion, type HistoryEntry, type SessionItem } from '../../demo/page/history.js';
import { answerToolResultText, closedToolResultText } from '../../plugin/contract/tool-result.js';
import { answerBody, first, getJson, postStream } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

const receipts = (entries: HistoryEntry[]) => entries.flatMap((e) => (e.kind === 'receipt' ? [e.receipt] : []));

test('refused ask_user calls (invalid arguments, a second question in one turn) are not redrawn as cards', async (t) => {
  const h = await startHarness({
    turns: [
      { toolCalls: [{ id: 'call_inv', name: 'ask_user', arguments: { title: 'Broken', mode: 'single', options: [] } }] },
      { toolCalls: [askSingle('call_q1'), { ...askSingle('call_q2'), arguments: { ...askSingle().arguments, title: 'Second' } }] },
      { toolCalls: [askSingle('call_q3')] },
      { text: 'done' },
    ],
  });
  t.after(() => h.close());
  const sessionId = 's-history-refused';
  const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: 'start' });
  const ask = first(chat, 'user_input_required');
  assert.equal(ask.toolCallId, 'call_q1');
  // A new message while q1 is open supersedes it; the model then asks q3, which the user answers.
  const again = await postStream(`${h.url}/api/chat`, { sessionId, message: 'never mind' });
  const ask3 = first(again, 'user_input_required');
  assert.equal(ask3.toolCallId, 'call_q3');
  const cont = await postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, ask3.id, ['safe'], 'carefully'));
  assert.deepEqual(first(cont, 'done'), { reason: 'completed' });

  const { status, body } = await getJson(`${h.url}/api/session?sessionId=${sessionId}`);
  assert.equal(status, 200);
  const items = body.items as SessionItem[];
  const refused = items.filter((i) => i.role === 'tool' && (i.toolCallId === 'call_inv' || i.toolCallId === 'call_q2'));
  assert.equal(refused.length, 2, 'the session does hold both refusals as ToolResults');

  const entries = historyEntries(items);
  assert.deepEqual(
    receipts(entries).map((r) => [r.toolCallId, r.state]),
    [
      ['call_q1', 'superseded'],
      ['call_q3', 'answered'],
    ],
  );
  const { at, ...answered } = receipts(entries)[1]!;
  assert.deepEqual(answered, {
    toolCallId: 'call_q3',
    title: 'How should I proceed?',
    mode: 'single',
    state: 'answered',
    selections: ['Analyse first'],
    customInput: 'carefully',
    runEnded: 'completed',
  });
  assert.match(at ?? '', /^\d{4}-\d\d-\d\dT/, 'the session view gives the time the question closed');
  assert.ok(!entries.some((e) => e.kind === 'tool'), 'ask_user ToolResults, refused or not, are not drawn as tool output');
  assert.deepEqual(
    entries.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => (e as { text: string }).text),
    ['start', 'never mind', 'done'],
  );
});

test('receipts for questions the user saw keep their state: expired, cancelled, and no result yet reads expired', () => {
  const args = JSON.stringify({ title: 'Which?', mode: 'single', options: [{ id: 'a', label: 'Alpha' }] });
  assert.equal(pastQuestion('c', args, closedToolResultText('expired'))?.state, 'expired');
  assert.equal(pastQuestion('c', args, closedToolResultText('superseded'))?.state, 'superseded');
  assert.equal(pastQuestion('c', args, answerToolResultText({ selections: [], customInput: '', cancelled: true }))?.state, 'cancelled');
  assert.equal(pastQuestion('c', args, undefined)?.state, 'expired');
  assert.deepEqual(
    pastQuestion('c', args, answerToolResultText({ selections: ['a', 'gone'], customInput: '', cancelled: false }))?.selections,
    ['Alpha', 'gone'],
  );
  // Any ToolResult that is not an answer is a refusal the user never saw, whatever its words.
  assert.equal(pastQuestion('c', args, 'Error: unknown tool "ask_user"; available tools: none'), undefined);
  assert.equal(pastQuestion('c', args, '{"error":"nope"}'), undefined);
  assert.equal(pastQuestion('c', args, ''), undefined);
});

test('the open card is left to the pending restore, and other tools show their output', () => {
  const items: SessionItem[] = [
    { role: 'user', text: 'go' },
    {
      role: 'assistant',
      text: '',
      toolCalls: [
        { id: 'call_list', name: 'list_test_suites', arguments: '{}' },
        { id: 'call_open', name: 'ask_user', arguments: '{"title":"Open","mode":"text"}' },
      ],
    },
    { role: 'tool', toolCallId: 'call_list', text: '["unit"]' },
  ];
  assert.deepEqual(historyEntries(items, 'call_open'), [
    { kind: 'user', text: 'go' },
    { kind: 'tool', name: 'list_test_suites', content: '["unit"]' },
  ]);
  assert.equal(receipts(historyEntries(items)).length, 1, 'without a pending card the same call reads as a closed question');
});
