/**
 * An MCP server on node:http over the SDK's streamable HTTP transport: one transport, and one server made
 * by `build`, per MCP session (the `mcp-session-id` header), so each client has a session of its own. A
 * request that fails is answered 400 without a body.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined;
}

export function mcpHttpHandler(build: () => McpServer): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async function mcpHttp(req, res) {
    try {
      const sid = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        await build().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(400).end();
    }
  };
}
