/**
 * One MCP client per chat session, for the tool calls of that session. MCP does not tie a server's
 * `elicitation/create` to the tool call that caused it: the request carries no id of the call, and the
 * SDK's client transports hand it over without the stream it came on. So an elicitation belongs to the
 * call running on its client, and calls on one client take turns (`during`); on a client shared by every
 * session, one user's open card held up every other user's calls until it was answered. A client per
 * session makes the wait that session's own (it has one card at a time anyway), and gives each user their
 * own MCP session on the server, so a stateful server never mixes two users' state.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolRequest, Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallOptions, McpCallResult, McpElicitation, McpSession } from './elicitation-bridge.js';

export interface McpSessionClientsOptions {
  /** A new transport to the MCP server; each session's client connects through its own. */
  transport: () => Transport;
  /** The bridge that shows the server's elicitations on the session's card. */
  elicitation: McpElicitation;
  /** How the clients introduce themselves to the server. @default { name: 'ask-user-kit', version: '1.0.0' } */
  clientInfo?: Implementation;
  /** A session's client is closed after this long without a call; the next call connects again. @default 600000 */
  idleMs?: number;
}

interface Entry {
  client: Promise<Client>;
  calls: number;
  idle?: ReturnType<typeof setTimeout>;
}

export class McpSessionClients {
  readonly #transport: () => Transport;
  readonly #elicitation: McpElicitation;
  readonly #clientInfo: Implementation;
  readonly #idleMs: number;
  readonly #entries = new Map<string, Entry>();

  constructor(options: McpSessionClientsOptions) {
    const { transport, elicitation, clientInfo = { name: 'ask-user-kit', version: '1.0.0' }, idleMs = 600_000 } = options;
    this.#transport = transport;
    this.#elicitation = elicitation;
    this.#clientInfo = clientInfo;
    this.#idleMs = idleMs;
  }

  /** How many sessions hold a client right now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Calls `params` on the session's own client (connected on first use) through `elicitation.callTool`. */
  async callTool(session: McpSession, params: CallToolRequest['params'], options?: McpCallOptions): Promise<McpCallResult> {
    const entry = this.#entry(session.sessionId);
    entry.calls++;
    clearTimeout(entry.idle);
    try {
      return await this.#elicitation.callTool(await entry.client, session, params, options);
    } finally {
      if (--entry.calls === 0 && this.#entries.get(session.sessionId) === entry) {
        entry.idle = setTimeout(() => void this.#drop(session.sessionId, entry), this.#idleMs);
        entry.idle.unref?.();
      }
    }
  }

  /** Closes every session's client. */
  async close(): Promise<void> {
    const entries = [...this.#entries];
    await Promise.all(entries.map(([sessionId, entry]) => this.#drop(sessionId, entry)));
  }

  #entry(sessionId: string): Entry {
    const known = this.#entries.get(sessionId);
    if (known) return known;
    const entry: Entry = { client: this.#connect(), calls: 0 };
    // A client that failed to connect is forgotten, so the next call tries again.
    entry.client.catch(() => {
      if (this.#entries.get(sessionId) === entry) this.#entries.delete(sessionId);
    });
    this.#entries.set(sessionId, entry);
    return entry;
  }

  async #connect(): Promise<Client> {
    const client = new Client(this.#clientInfo);
    this.#elicitation.attach(client);
    await client.connect(this.#transport());
    return client;
  }

  async #drop(sessionId: string, entry: Entry): Promise<void> {
    clearTimeout(entry.idle);
    if (this.#entries.get(sessionId) === entry) this.#entries.delete(sessionId);
    const client = await entry.client.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}
