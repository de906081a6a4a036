/**
 * The demo's own small MCP server (contract §7, `ASK_USER_MCP_URL` unset): one tool, `book_meeting`, that
 * asks the user for the meeting's details with `elicitation/create` (§10) and books what comes back. It
 * speaks the SDK's streamable HTTP transport on loopback, one MCP session per client.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export interface MeetingServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** What each elicitation answered, in order (for tests). */
  readonly results: ElicitResult[];
  close(): Promise<void>;
}

const MEETING = {
  type: 'object',
  properties: {
    date: { type: 'string', format: 'date', title: 'Day / 日期' },
    duration: { type: 'integer', title: 'Minutes / 时长（分钟）', minimum: 15, maximum: 120, default: 30 },
    attendees: {
      type: 'array',
      title: 'Who / 参会人',
      items: {
        anyOf: [
          { const: 'ana', title: 'Ana' },
          { const: 'bo', title: 'Bo' },
          { const: 'chen', title: 'Chen' },
        ],
      },
      minItems: 1,
    },
    invite: { type: 'boolean', title: 'Send invites? / 发送邀请？', default: true },
  },
  required: ['date', 'duration', 'attendees', 'invite'],
} as const;

function describe(result: ElicitResult): string {
  if (result.action !== 'accept' || !result.content) return `Not booked: the user answered ${result.action}.`;
  const c = result.content as { date: string; duration: number; attendees: string[]; invite: boolean };
  return `Booked ${c.duration} minutes on ${c.date} with ${c.attendees.join(', ')}; invites ${c.invite ? 'sent' : 'not sent'}.`;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  return parts.length ? JSON.parse(Buffer.concat(parts).toString('utf8')) : undefined;
}

export interface MeetingServerOptions {
  /** What `book_meeting` asks for. @default the meeting's day, length, attendees and invites */
  requestedSchema?: unknown;
}

export async function startMeetingServer({ requestedSchema = MEETING }: MeetingServerOptions = {}): Promise<MeetingServer> {
  const results: ElicitResult[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer(async (req, res) => {
    try {
      const sid = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (!transport) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        const mcp = new McpServer({ name: 'demo-meetings', version: '1.0.0' });
        mcp.registerTool('book_meeting', { description: 'Book a meeting; asks the user for the day, length and attendees.' }, async () => {
          const result = await mcp.server.elicitInput({
            mode: 'form',
            message: 'Book a meeting / 预约会议\nPick the day, the length and who comes. / 选择日期、时长和参会人。',
            requestedSchema: requestedSchema as never,
          });
          results.push(result);
          return { content: [{ type: 'text', text: describe(result) }] };
        });
        await mcp.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    results,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
