/**
 * The tools of the MCP servers the demo connects to (`ASK_USER_MCP_URL`), offered to the model as loop
 * tools: each call runs through `elicitation.during`, so an elicitation the server sends meanwhile shows
 * up as a card on the chat stream of the session that made the call (contract §10).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LoopTool } from '../../plugin/loop/index.js';
import type { McpElicitation } from '../../plugin/mcp/index.js';

export interface McpTools {
  tools: LoopTool[];
  close(): Promise<void>;
}

/** Long enough for a person to answer a card: the MCP request waits for them. */
const CALL_TIMEOUT_MS = 30 * 60 * 1000;

export async function connectMcpTools(urls: readonly string[], elicitation: McpElicitation): Promise<McpTools> {
  const clients: Client[] = [];
  const tools: LoopTool[] = [];
  for (const url of urls) {
    const client = new Client({ name: 'ask-user-kit-demo', version: '1.0.0' });
    elicitation.attach(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    tools.push(...(await loopToolsOf(client, elicitation)));
  }
  return { tools, close: async () => void (await Promise.all(clients.map((c) => c.close().catch(() => undefined)))) };
}

/** The tools of one connected MCP client, each call run through `elicitation.during` for its session. */
export async function loopToolsOf(client: Client, elicitation: McpElicitation): Promise<LoopTool[]> {
  return (await client.listTools()).tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? tool.name,
    parameters: tool.inputSchema as Record<string, unknown>,
    run: async (args, ctx) => {
      const result = await elicitation.during(client, { sessionId: ctx.sessionId, sse: ctx.sse }, () =>
        client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, signal: ctx.signal }),
      );
      const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      return { content: text, isError: result.isError === true };
    },
  }));
}
