/**
 * A redrawn answered receipt says how the run it continued ended, as the live card did after `done`:
 * read from what followed the answer up to the next user message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyEntries, type SessionItem } from '../../demo/page/history.js';

const ASK = JSON.stringify({ title: 'Which?', mode: 'single', options: [{ id: 'a', label: 'Alpha' }] });
const ANSWER = JSON.stringify({ selections: ['a'], customInput: '', cancelled: false });
const asked = (id: string): SessionItem[] => [
  { role: 'assistant', text: '', toolCalls: [{ id, name: 'ask_user', arguments: ASK }] },
  { role: 'tool', toolCallId: id, text: ANSWER, at: '2026-01-02T03:04:05.000Z' },
];
const runEnded = (items: SessionItem[], running = false) =>
  historyEntries(items, undefined, running).flatMap((e) =>
    e.kind !== 'receipt' ? [] : [e.receipt.state === 'answered' ? (e.receipt.runEnded ?? 'continuing') : e.receipt.state],
  );

test('answered, then the model replied: completed; the time the session view gave is kept', () => {
  const items = [{ role: 'user', text: 'go' }, ...asked('c1'), { role: 'assistant', text: 'done' }] as SessionItem[];
  assert.deepEqual(runEnded(items), ['completed']);
  const [entry] = historyEntries(items).filter((e) => e.kind === 'receipt');
  assert.equal(entry?.kind === 'receipt' && entry.receipt.at, '2026-01-02T03:04:05.000Z');
});

test('answered, then the model asked again: paused (also while that question is open)', () => {
  const items = [
    { role: 'user', text: 'go' },
    ...asked('c1'),
    { role: 'assistant', text: '', toolCalls: [{ id: 'c2', name: 'ask_user', arguments: ASK }] },
  ] as SessionItem[];
  assert.deepEqual(runEnded(items), ['paused', 'expired']);
  assert.deepEqual(
    historyEntries(items, 'c2').flatMap((e) => (e.kind === 'receipt' ? [e.receipt.runEnded] : [])),
    ['paused'],
  );
});

test('answered, then nothing: an error once the run is over, still continuing while it runs; a later message ends the turn', () => {
  const items = [{ role: 'user', text: 'go' }, ...asked('c1')] as SessionItem[];
  assert.deepEqual(runEnded(items), ['error']);
  assert.deepEqual(runEnded(items, true), ['continuing']);
  assert.deepEqual(runEnded([...items, { role: 'user', text: 'again' }, { role: 'assistant', text: 'ok' }], true), ['error']);
});
