/**
 * A client per session (plugin/mcp/session-clients.ts): one user's open card holds up no other user's
 * MCP call, each session talks to the server in its own MCP session, and an idle session's client closes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { parseSse } from '../harness.js';
import { httpTransport, mcpWorld } from './mcp-host.js';
import { startToolServer } from './tool-server.js';
import { McpSessionClients, mcpElicitation } from '../../../plugin/mcp/index.js';
import { MEETING } from '../../../demo/mcp/meeting-tools.js';

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ fallback: { text: 'done' } });
});
after(() => model.close());

const answers = [
  { id: 'date', selections: [], customInput: '2026-12-10' },
  { id: 'duration', selections: [], customInput: '30' },
  { id: 'attendees', selections: ['bo'], customInput: '' },
  { id: 'invite', selections: ['false'], customInput: '' },
];

test("one session's open card does not hold up another session's call on the same MCP server", { timeout: 20_000 }, async (t) => {
  const world = await mcpWorld(t, model, MEETING);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url);
  // Each chat's model call returns the tool call of its own session (the two runs race for the queue).
  const call = (id: string) => ({ toolCalls: [{ id, name: 'book_meeting', arguments: {} }] });
  model.enqueue(call('call_first'));
  const first = await host.chatUntilCard('s-first');
  assert.ok(first.card, "the first session's card is open");

  model.enqueue(call('call_second'), { text: 'second booked' });
  const second = await host.chatUntilCard('s-second');
  assert.ok(second.card, "the second session's call got through and shows its own card");
  assert.equal(second.card.sessionId, 's-second');

  const ok = await host.post('/api/chat/continue', { sessionId: 's-second', requestId: second.card.id, answers, cancelled: false });
  assert.equal(ok.status, 200);
  await ok.text();
  const done = await second.rest;
  assert.match((done.find((f) => f.event === 'tool_result')!.data as any).content, /^Booked 30 minutes/);
  assert.equal((await host.pending('s-first')).pending.id, first.card.id, 'the first card is still open');

  model.enqueue({ text: 'first booked' });
  const cancel = await host.post('/api/chat/continue', { sessionId: 's-first', requestId: first.card.id, answers: [], cancelled: true });
  assert.deepEqual(
    parseSse(await cancel.text()).frames.map((f) => f.event),
    ['interaction_resolved', 'done'],
  );
  await first.rest;
  assert.deepEqual(
    meetings.results.map((r) => r.action),
    ['accept', 'decline'],
  );
});

test('each session calls in its own MCP session; an idle client is closed and the next call connects again', async (t) => {
  const server = await startToolServer('plain');
  t.after(() => server.close());
  server.add('hello', 'says hello', 'hello there');
  const clients = new McpSessionClients({ transport: httpTransport(server.url), elicitation: mcpElicitation(), idleMs: 50 });
  t.after(() => clients.close());
  const call = (sessionId: string) => clients.callTool({ sessionId }, { name: 'hello', arguments: {} });
  const [a, b] = await Promise.all([call('s-a'), call('s-b')]);
  assert.deepEqual([a.content, b.content], [[{ type: 'text', text: 'hello there' }], [{ type: 'text', text: 'hello there' }]]);
  assert.equal(clients.size, 2);
  assert.equal(server.connections, 2, 'one MCP session each');
  while (clients.size > 0 && !t.signal.aborted) await new Promise((r) => setTimeout(r, 20));
  const again = await call('s-a');
  assert.deepEqual(again.content, [{ type: 'text', text: 'hello there' }]);
  assert.equal(server.connections, 3, 'the closed client was connected again');
});
