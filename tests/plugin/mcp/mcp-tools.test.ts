/**
 * The demo's MCP tools (demo/mcp/mcp-tools.ts) against real MCP servers from the SDK: the list follows the
 * servers' `notifications/tools/list_changed`, and two servers offering one tool name are both offered,
 * prefixed with their server names, each call reaching its own server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { parseSse } from '../harness.js';
import { mcpWorld } from './mcp-host.js';
import { startToolServer } from './tool-server.js';
import { MEETING } from '../../../demo/mcp/meeting-tools.js';

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ fallback: { text: 'fine' } });
});
after(() => model.close());

const offered = (body: unknown) =>
  ((body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name).filter((n) => n !== 'ask_user');

test('a tool the server adds later is listed after its list_changed, offered to the model and called', { timeout: 20_000 }, async (t) => {
  const world = await mcpWorld(t, model, MEETING);
  const server = world.keep(await startToolServer('growing'));
  server.add('hello', 'says hello', 'hello there');
  // The AI SDK runtime reads its tools per run; the agent loop reads them once (see mcp-tools.ts).
  const host = await world.host(server.url, { runtime: 'ai-sdk' });
  assert.deepEqual(
    host.mcpTools.tools.map((x) => x.name),
    ['hello'],
  );
  server.add('later_tool', 'added while connected', 'later result');
  while (!host.mcpTools.tools.some((x) => x.name === 'later_tool') && !t.signal.aborted) await new Promise((r) => setTimeout(r, 20));
  assert.equal(host.mcpTools.tools.find((x) => x.name === 'later_tool')!.description, 'added while connected');

  const asked = model.requests.length;
  model.enqueue({ toolCalls: [{ id: 'call_later', name: 'later_tool', arguments: {} }] }, { text: 'used it' });
  const res = await host.post('/api/chat', { sessionId: 's-later', message: 'use the new tool' });
  const frames = parseSse(await res.text()).frames;
  const result = frames.find((f) => f.event === 'tool_result')!.data as any;
  assert.deepEqual([result.toolCallId, result.content, result.isError], ['call_later', 'later result', false]);
  assert.deepEqual(offered(model.requests[asked]).sort(), ['hello', 'later_tool']);
});

test('two servers with one tool name: both offered under their server names, each call reaches its own server', async (t) => {
  const world = await mcpWorld(t, model, MEETING);
  const alpha = await world.meetings(MEETING, undefined, { name: 'alpha' });
  const beta = await world.meetings(MEETING, undefined, { name: 'beta cal.v2' });
  const host = await world.host([alpha.url, beta.url]);
  const names = ['alpha__book_meeting', 'alpha__connect_calendar', 'beta_cal_v2__book_meeting', 'beta_cal_v2__connect_calendar'];
  assert.deepEqual(
    host.mcpTools.tools.map((x) => x.name),
    names,
  );

  const asked = model.requests.length;
  model.enqueue({ toolCalls: [{ id: 'call_beta', name: 'beta_cal_v2__book_meeting', arguments: {} }] }, { text: 'booked on beta' });
  const { card, rest } = await host.chatUntilCard('s-two');
  assert.deepEqual(offered(model.requests[asked]), names);
  const answers = [
    { id: 'date', selections: [], customInput: '2026-12-10' },
    { id: 'duration', selections: [], customInput: '30' },
    { id: 'attendees', selections: ['ana'], customInput: '' },
    { id: 'invite', selections: ['true'], customInput: '' },
  ];
  const ok = await host.post('/api/chat/continue', { sessionId: 's-two', requestId: card.id, answers, cancelled: false });
  assert.equal(ok.status, 200);
  await ok.text();
  const chat = await rest;
  const result = chat.find((f) => f.event === 'tool_result')!.data as any;
  assert.equal(result.name, 'beta_cal_v2__book_meeting');
  assert.match(result.content, /^Booked 30 minutes on 2026-12-10 with ana/);
  assert.equal(beta.results.length, 1);
  assert.deepEqual(alpha.results, [], 'the other server got nothing');
});
