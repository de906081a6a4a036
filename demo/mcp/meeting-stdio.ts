/**
 * The demo's meeting tools over stdio, for MCP clients that start their servers as child processes:
 * `node --import tsx demo/mcp/meeting-stdio.ts`. stdout carries the protocol, so each elicitation's answer
 * is written to stderr, one JSON line each, for whoever started it to check.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MEETING, meetingMcp } from './meeting-tools.js';

const mcp = meetingMcp(
  // No page of its own here: the sign-in link points at a name that never resolves (RFC 2606).
  { requestedSchema: MEETING, connectUrl: (id) => `https://calendar.invalid/connect/${id}` },
  (result) => void process.stderr.write(`${JSON.stringify(result)}\n`),
);
await mcp.connect(new StdioServerTransport());
