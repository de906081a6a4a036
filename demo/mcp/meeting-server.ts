/**
 * The demo's own small MCP server (contract §7, `ASK_USER_MCP_URL` unset), on loopback, speaking the SDK's
 * streamable HTTP transport, one MCP session per client. Two tools elicit (§10): `book_meeting` asks for
 * the meeting's details with a form and books what comes back; `connect_calendar` asks the user to open
 * its sign-in page (URL mode), which it serves itself at `/connect/<elicitationId>`.
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
  /** The elicitation ids whose sign-in page was opened, in order. */
  readonly visits: string[];
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
  /** The link `connect_calendar` asks the user to open. @default this server's own sign-in page */
  connectUrl?: string;
}

const CONNECTED_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Calendar connected</title>' +
  '<main><h1>Calendar connected / 日历已连接</h1><p>You can close this tab. / 可以关闭此页。</p></main></html>';

export async function startMeetingServer({ requestedSchema = MEETING, connectUrl }: MeetingServerOptions = {}): Promise<MeetingServer> {
  const results: ElicitResult[] = [];
  const visits: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let base = '';
  const server: Server = createServer(async (req, res) => {
    try {
      const connect = /^\/connect\/([\w-]{1,64})$/.exec(req.url ?? '');
      if (connect && req.method === 'GET') {
        visits.push(connect[1]!);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(CONNECTED_PAGE);
        return;
      }
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
        mcp.registerTool(
          'connect_calendar',
          { description: "Connect the user's calendar; asks them to sign in on its page." },
          async () => {
            const elicitationId = randomUUID();
            const result = await mcp.server.elicitInput({
              mode: 'url',
              message:
                'Connect your calendar / 连接日历\nSign in on the calendar page so free times can be found. / 在日历页面登录，以便查找空闲时间。',
              url: connectUrl ?? `${base}/connect/${elicitationId}`,
              elicitationId,
            });
            results.push(result);
            const text =
              result.action === 'accept'
                ? 'The user opened the calendar sign-in page.'
                : `Not connected: the user answered ${result.action}.`;
            return { content: [{ type: 'text', text }] };
          },
        );
        await mcp.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    results,
    visits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
