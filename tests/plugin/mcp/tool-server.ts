/**
 * A small MCP server from the SDK on loopback for the tests the meeting server cannot stage: tools added
 * while clients are connected (each connection hears `notifications/tools/list_changed`), and tools that
 * send an `elicitation/create` exactly as given, malformed ones included.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mcpHttpHandler } from '../../../demo/mcp/mcp-http.js';
import { ElicitResultSchema, type ClientCapabilities, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export interface ToolServer {
  readonly url: string;
  /** What each elicitation came back as: a result, or the error the client answered. */
  readonly results: Array<ElicitResult | { error: { code: number; message: string } }>;
  /** How many MCP sessions (client connections) the server has had. */
  readonly connections: number;
  /** The capabilities each connected client declared. */
  readonly capabilities: ClientCapabilities[];
  /** Sends `params` as an `elicitation/create` outside any tool call, to every client that declared elicitation. */
  elicit(params: Record<string, unknown>): Promise<ElicitResult[]>;
  /** Adds a tool answering `text` on every connection, which then tells its client the list changed. */
  add(name: string, description: string, text: string): void;
  close(): Promise<void>;
}

/** A tool that sends `params` as an `elicitation/create` and answers with what came back. */
export interface EliciterTool {
  name: string;
  params: Record<string, unknown>;
}

export async function startToolServer(name: string, eliciters: EliciterTool[] = []): Promise<ToolServer> {
  const results: ToolServer['results'] = [];
  const capabilities: ClientCapabilities[] = [];
  const plain: Array<{ name: string; description: string; text: string }> = [];
  const live: McpServer[] = [];

  const register = (mcp: McpServer, tool: { name: string; description: string; text: string }) =>
    mcp.registerTool(tool.name, { description: tool.description }, async () => ({ content: [{ type: 'text', text: tool.text }] }));

  const build = () => {
    const mcp = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    for (const tool of plain) register(mcp, tool);
    for (const e of eliciters) {
      mcp.registerTool(e.name, { description: `elicits ${e.name}` }, async () => {
        capabilities.push(mcp.server.getClientCapabilities() ?? {});
        // Sent as given: elicitInput would add the mode and check the client's capabilities first.
        const asked = mcp.server.request({ method: 'elicitation/create', params: e.params as never }, ElicitResultSchema).then(
          (result) => void results.push(result),
          (error: { code: number; message: string }) => void results.push({ error: { code: error.code, message: error.message } }),
        );
        await asked;
        return { content: [{ type: 'text', text: JSON.stringify(results.at(-1)) }] };
      });
    }
    live.push(mcp);
    return mcp;
  };

  const server = createServer(mcpHttpHandler(build));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    results,
    capabilities,
    get connections() {
      return live.length;
    },
    elicit: (params) =>
      Promise.all(
        live
          .filter((mcp) => mcp.server.getClientCapabilities()?.elicitation)
          .map((mcp) => mcp.server.request({ method: 'elicitation/create', params: params as never }, ElicitResultSchema)),
      ),
    add(toolName, description, text) {
      const tool = { name: toolName, description, text };
      plain.push(tool);
      // Registering on a connected server sends its client `notifications/tools/list_changed`.
      for (const mcp of live) register(mcp, tool);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
