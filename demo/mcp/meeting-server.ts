/**
 * The demo's own small MCP server (contract §7, `ASK_USER_MCP_URL` unset) on loopback: the tools of
 * meeting-tools.ts over the SDK's streamable HTTP transport, one MCP session per client, and the sign-in
 * page `connect_calendar` links to, at `/connect/<elicitationId>`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpHttpHandler } from './mcp-http.js';
import { MEETING, meetingMcp } from './meeting-tools.js';

export interface MeetingServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** What each elicitation answered, in order (for tests). */
  readonly results: ElicitResult[];
  /** The elicitation ids whose sign-in page was opened, in order. */
  readonly visits: string[];
  close(): Promise<void>;
}

export interface MeetingServerOptions {
  /** What `book_meeting` asks for. @default the meeting's day, length, attendees and invites */
  requestedSchema?: unknown;
  /** The link `connect_calendar` asks the user to open. @default this server's own sign-in page */
  connectUrl?: string;
  /** The server's `serverInfo.name`. @default 'demo-meetings' */
  name?: string;
  /** How long an elicitation may go without progress from the client (meeting-tools.ts). @default 60000 */
  elicitTimeoutMs?: number;
}

const CONNECTED_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Calendar connected</title>' +
  '<main><h1>Calendar connected / 日历已连接</h1><p>You can close this tab. / 可以关闭此页。</p></main></html>';

export async function startMeetingServer(options: MeetingServerOptions = {}): Promise<MeetingServer> {
  const { requestedSchema = MEETING, connectUrl, name, elicitTimeoutMs } = options;
  const results: ElicitResult[] = [];
  const visits: string[] = [];
  let base = '';
  const asks = {
    requestedSchema,
    connectUrl: (id: string) => connectUrl ?? `${base}/connect/${id}`,
    ...(name ? { name } : {}),
    ...(elicitTimeoutMs ? { elicitTimeoutMs } : {}),
  };
  const mcp = mcpHttpHandler(() => meetingMcp(asks, (r) => void results.push(r)));
  const server: Server = createServer((req, res) => {
    const connect = /^\/connect\/([\w-]{1,64})$/.exec(req.url ?? '');
    if (connect && req.method === 'GET') {
      visits.push(connect[1]!);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(CONNECTED_PAGE);
      return;
    }
    void mcp(req, res);
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
