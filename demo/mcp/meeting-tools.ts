/**
 * The demo MCP server's two tools, both asking the user through elicitation (§10): `book_meeting` asks
 * for the meeting's details with a form and books what comes back; `connect_calendar` asks the user to
 * open a sign-in page (URL mode). One McpServer per connection, whatever the transport.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export const MEETING = {
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

export interface MeetingAsks {
  /** What `book_meeting` asks for. */
  requestedSchema: unknown;
  /** The sign-in link of one `connect_calendar` elicitation. */
  connectUrl: (elicitationId: string) => string;
  /** The server's `serverInfo.name`. @default 'demo-meetings' */
  name?: string;
  /**
   * How long an elicitation may go without a word from the client. The client's progress notifications
   * (sent while its card is open) start the clock again, so a person may take as long as the card lasts.
   * @default 60000, the SDK's default
   */
  elicitTimeoutMs?: number;
}

/** A person answers at their own pace: the request stays alive while the client reports progress. */
const waitingFor = (timeout: number) => ({ timeout, resetTimeoutOnProgress: true, onprogress: () => {} });

/** A server with both tools; `onResult` hears each elicitation's answer before the tool returns. */
export function meetingMcp(asks: MeetingAsks, onResult: (result: ElicitResult) => void): McpServer {
  const { requestedSchema, connectUrl, name = 'demo-meetings', elicitTimeoutMs = 60_000 } = asks;
  const mcp = new McpServer({ name, version: '1.0.0' });
  mcp.registerTool('book_meeting', { description: 'Book a meeting; asks the user for the day, length and attendees.' }, async () => {
    const result = await mcp.server.elicitInput(
      {
        mode: 'form',
        message: 'Book a meeting / 预约会议\nPick the day, the length and who comes. / 选择日期、时长和参会人。',
        requestedSchema: requestedSchema as never,
      },
      waitingFor(elicitTimeoutMs),
    );
    onResult(result);
    return { content: [{ type: 'text', text: describe(result) }] };
  });
  mcp.registerTool('connect_calendar', { description: "Connect the user's calendar; asks them to sign in on its page." }, async () => {
    const elicitationId = randomUUID();
    const result = await mcp.server.elicitInput(
      {
        mode: 'url',
        message:
          'Connect your calendar / 连接日历\nSign in on the calendar page so free times can be found. / 在日历页面登录，以便查找空闲时间。',
        url: connectUrl(elicitationId),
        elicitationId,
      },
      waitingFor(elicitTimeoutMs),
    );
    onResult(result);
    const text =
      result.action === 'accept' ? 'The user opened the calendar sign-in page.' : `Not connected: the user answered ${result.action}.`;
    return { content: [{ type: 'text', text }] };
  });
  return mcp;
}
