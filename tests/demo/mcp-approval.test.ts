/**
 * The demo's MCP tools follow their annotations through `mcpApprovalPolicy` (contract §12): a tool that
 * says `destructiveHint: true` runs only once the user approved its call on the card, one that says
 * `idempotentHint: true` is marked idempotent, one that says nothing runs at once. An MCP server in this
 * process (in-memory transport), the demo app on a scripted model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { mcpElicitation } from 'ask-user-kit/plugin/mcp';
import { McpServerTools } from '../../demo/mcp/mcp-server-tools.js';
import { loopToolsOf } from '../../demo/mcp/mcp-tools.js';
import { startHarness } from './harness.js';
import { all, first, postStream } from './sse-client.js';

test('an MCP tool with destructiveHint waits for approval on the card and runs once approved; one without runs at once', async (t) => {
  const runs: string[] = [];
  const server = () => {
    const mcp = new McpServer({ name: 'ops', version: '1.0.0' });
    const ran = (name: string) => async () => (runs.push(name), { content: [{ type: 'text' as const, text: `${name} done` }] });
    mcp.registerTool('drop_cache', { description: 'Drop the build cache.', annotations: { destructiveHint: true } }, ran('drop_cache'));
    mcp.registerTool('warm_cache', { description: 'Warm the build cache.', annotations: { idempotentHint: true } }, ran('warm_cache'));
    mcp.registerTool('cache_stats', { description: 'Read the cache statistics.' }, ran('cache_stats'));
    return mcp;
  };
  const elicitation = mcpElicitation({ locale: 'en' });
  const ops = await McpServerTools.connect({
    transport: () => {
      const [client, end] = InMemoryTransport.createLinkedPair();
      void server().connect(end);
      return client;
    },
    elicitation,
  });
  const tools = loopToolsOf([ops]);
  t.after(() => tools.close());

  const policy = Object.fromEntries(tools.tools.map((tool) => [tool.name, [tool.needsApproval, tool.idempotent]]));
  assert.deepEqual(policy, {
    drop_cache: [true, undefined],
    warm_cache: [undefined, true],
    cache_stats: [undefined, undefined],
  });

  const h = await startHarness({
    tools: () => tools.tools,
    elicitation,
    locale: 'en',
    turns: [
      {
        toolCalls: [
          { id: 'call_stats', name: 'cache_stats', arguments: {} },
          { id: 'call_drop', name: 'drop_cache', arguments: {} },
        ],
      },
      { text: 'Cache dropped.' },
    ],
  });
  t.after(() => h.close());
  const sessionId = 's-mcp-approval';
  const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: 'clean the cache' });
  assert.deepEqual(
    all(chat, 'tool_result').map((r: any) => r.name),
    ['cache_stats'],
    'the tool that says nothing ran before the card',
  );
  const card = first(chat, 'user_input_required');
  assert.equal(card.mode, 'approval');
  assert.deepEqual(
    card.approvals.map((a: any) => [a.toolCallId, a.tool]),
    [['call_drop', 'drop_cache']],
  );
  assert.deepEqual(runs, ['cache_stats'], 'the destructive tool ran before it was approved');

  const cont = await postStream(`${h.url}/api/chat/continue`, {
    sessionId,
    requestId: card.id,
    decisions: [{ toolCallId: 'call_drop', decision: 'approve' }],
    cancelled: false,
  });
  assert.equal(cont.status, 200);
  assert.deepEqual(
    all(cont, 'tool_result').map((r: any) => [r.name, r.content]),
    [['drop_cache', 'drop_cache done']],
  );
  assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
  assert.deepEqual(runs, ['cache_stats', 'drop_cache'], 'each ran once');
});
