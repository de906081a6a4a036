/**
 * Contract §10 over stdio: the demo's meeting tools run as a child process (demo/mcp/meeting-stdio.ts)
 * behind the SDK's stdio transport. The bridge does not care how the MCP server is reached: the form
 * elicitation still becomes one card, and its answer reaches the child once, typed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openStore } from '../../../plugin/index.js';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { parseSse } from '../harness.js';
import { startMcpHost } from './mcp-host.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({ fallback: { text: 'booked' } });
});
after(() => model.close());

test('over stdio: the form elicitation becomes one card, and the child MCP server gets the typed answer once', async (t) => {
  // One child per client: the catalog's, and the session's that makes the call.
  let stderr = '';
  const transport = () => {
    const child = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'demo/mcp/meeting-stdio.ts'],
      cwd: root,
      stderr: 'pipe',
    });
    child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    return child;
  };
  const store = await openStore('memory');
  const host = await startMcpHost(store, model, transport);
  t.after(async () => {
    await host.close();
    await store.close();
  });
  model.enqueue({ toolCalls: [{ id: 'call_stdio', name: 'book_meeting', arguments: {} }] }, { text: 'booked' });
  const { card, rest } = await host.chatUntilCard('s-stdio');
  assert.equal(card.mode, 'form');
  assert.deepEqual(
    card.questions.map((q: any) => q.id),
    ['date', 'duration', 'attendees', 'invite'],
  );
  const answer = {
    sessionId: 's-stdio',
    requestId: card.id,
    cancelled: false,
    answers: [
      { id: 'date', selections: [], customInput: '2026-12-11' },
      { id: 'duration', selections: [], customInput: '30' },
      { id: 'attendees', selections: ['chen'], customInput: '' },
      { id: 'invite', selections: ['true'], customInput: '' },
    ],
  };
  const ok = await host.post('/api/chat/continue', answer);
  assert.equal(ok.status, 200);
  assert.deepEqual(
    parseSse(await ok.text()).frames.map((f) => f.event),
    ['interaction_resolved', 'done'],
  );
  const chat = await rest;
  const result = chat.find((f) => f.event === 'tool_result' && (f.data as any).toolCallId === 'call_stdio');
  assert.equal((result!.data as any).content, 'Booked 30 minutes on 2026-12-11 with chen; invites sent.');
  const again = await host.post('/api/chat/continue', answer);
  assert.equal(again.status, 409);
  assert.deepEqual(
    stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l)),
    [{ action: 'accept', content: { date: '2026-12-11', duration: 30, attendees: ['chen'], invite: true } }],
    'the child received exactly one result',
  );
});
