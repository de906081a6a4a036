/**
 * Every elicitation the card cannot show is answered `decline` (§10), never a JSON-RPC error, and logged
 * without the values the server sent: a schema outside the mapping (a nested object), a request the
 * protocol's own schema rejects, a mode the card does not know, a request with no call of a session
 * running. The client declares both modes, form with `applyDefaults`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { mcpWorld } from './mcp-host.js';
import { startToolServer, type EliciterTool } from './tool-server.js';
import { MEETING } from '../../../demo/mcp/meeting-tools.js';

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ fallback: { text: 'fine' } });
});
after(() => model.close());

const eliciters: EliciterTool[] = [
  {
    name: 'nested',
    params: {
      mode: 'form',
      message: 'Where?',
      requestedSchema: {
        type: 'object',
        properties: { where: { type: 'object', properties: { room: { type: 'string', default: 'secret-room-42' } } } },
      },
    },
  },
  { name: 'no_message', params: { mode: 'form', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } } },
  { name: 'voice', params: { mode: 'voice', message: 'Say it' } },
  { name: 'no_schema', params: { message: 'What?' } },
];

test('each request the card cannot show is declined unseen, logged without values, never a JSON-RPC error', async (t) => {
  const world = await mcpWorld(t, model, MEETING);
  const server = world.keep(await startToolServer('odd-asks', eliciters));
  const declined: string[] = [];
  const host = await world.host(server.url, { declined });
  for (const { name } of eliciters) {
    model.enqueue({ toolCalls: [{ id: `call_${name}`, name, arguments: {} }] }, { text: 'fine' });
    const shown = await host.chatUntilCard(`s-${name}`);
    assert.equal(shown.card, undefined, `${name}: nothing was shown`);
    await shown.rest;
    assert.equal((await host.pending(`s-${name}`)).pending, null);
  }
  assert.deepEqual(
    server.results,
    eliciters.map(() => ({ action: 'decline' })),
  );
  assert.equal(declined.length, eliciters.length);
  assert.match(declined[0]!, /property "where" has type "object", which no question takes/);
  assert.match(declined[1]!, /not a valid elicitation\/create: params\.message \(invalid_type\)/);
  assert.match(declined[2]!, /neither form nor url/);
  assert.match(declined[3]!, /requestedSchema is not an object schema/);
  assert.doesNotMatch(declined.join('\n'), /secret-room-42|Where\?/, 'no value the server sent is logged');
  assert.ok(
    declined.every((d) => d.length < 300),
    'short reasons, no validation dump',
  );
  assert.deepEqual(server.capabilities[0]!.elicitation, { form: { applyDefaults: true }, url: {} });
});

test('an elicitation arriving while no call of a session runs on the client is declined', async (t) => {
  const world = await mcpWorld(t, model, MEETING);
  const server = world.keep(
    await startToolServer('eager', [{ name: 'ask', params: { mode: 'form', message: 'Hi', requestedSchema: MEETING } }]),
  );
  const declined: string[] = [];
  const host = await world.host(server.url, { declined });
  model.enqueue({ toolCalls: [{ id: 'call_ask', name: 'ask', arguments: {} }] }, { text: 'fine' });
  const first = await host.chatUntilCard('s-eager');
  assert.ok(first.card);
  const cancel = await host.post('/api/chat/continue', { sessionId: 's-eager', requestId: first.card.id, answers: [], cancelled: true });
  await cancel.text();
  await first.rest;
  // The session's client is still connected, but runs no call now.
  assert.deepEqual(await server.elicit({ mode: 'form', message: 'Out of the blue', requestedSchema: MEETING }), [{ action: 'decline' }]);
  assert.match(declined.join('\n'), /no session is running a call on this MCP client/);
});
