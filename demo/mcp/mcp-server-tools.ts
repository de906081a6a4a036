/**
 * One MCP server as the demo uses it: a catalog client that lists the server's tools and lists them again
 * whenever the server says `notifications/tools/list_changed`, and a client per chat session for the
 * calls (the kit's `McpSessionClients`), so one user's open card never holds up another user's call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type Implementation, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpSessionClients, type McpCallResult, type McpElicitation, type McpSession } from 'ask-user-kit/plugin/mcp';

export interface McpServerToolsOptions {
  /** A new transport to the server: one for the catalog, one per session's client. */
  transport: () => Transport;
  elicitation: McpElicitation;
  /** @default { name: 'ask-user-kit-demo', version: '1.0.0' } */
  clientInfo?: Implementation;
  /** A call's timeout while no card of it is open (`McpCallOptions.timeoutMs`). @default the SDK's 60 s */
  callTimeoutMs?: number;
  /** Where a failed refresh of the tool list is reported (the last list stays). @default console.error */
  onError?: (error: unknown) => void;
}

export class McpServerTools {
  readonly #catalog: Client;
  readonly #sessions: McpSessionClients;
  readonly #callTimeoutMs: number | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<() => void>();
  #tools: Tool[] = [];
  /** Refreshes run one after another, so an older list never lands after a newer one. */
  #refreshing: Promise<void> = Promise.resolve();

  private constructor(catalog: Client, options: McpServerToolsOptions) {
    const {
      transport,
      elicitation,
      clientInfo,
      callTimeoutMs,
      onError = (error) => console.error('[demo mcp] tool list', error),
    } = options;
    this.#catalog = catalog;
    this.#sessions = new McpSessionClients({ transport, elicitation, ...(clientInfo ? { clientInfo } : {}) });
    this.#callTimeoutMs = callTimeoutMs;
    this.#onError = onError;
  }

  /** Connects the catalog client and reads the tool list once before resolving. */
  static async connect(options: McpServerToolsOptions): Promise<McpServerTools> {
    const catalog = new Client(options.clientInfo ?? { name: 'ask-user-kit-demo', version: '1.0.0' });
    const server = new McpServerTools(catalog, options);
    // Heard whether or not the server declared `tools.listChanged`: a list that changed is worth reading.
    catalog.setNotificationHandler(ToolListChangedNotificationSchema, () => void server.refresh().catch(server.#onError));
    await catalog.connect(options.transport());
    await server.refresh();
    return server;
  }

  /** The server's own name (`serverInfo.name`), which prefixes its tools' names on a collision. */
  get name(): string {
    return this.#catalog.getServerVersion()?.name ?? 'mcp';
  }

  /** The tools as the server listed them last. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** `listener` runs after each refresh of the list. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Reads the whole list again (every page). */
  refresh(): Promise<void> {
    const next = this.#refreshing.then(async () => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await this.#catalog.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      this.#tools = tools;
      for (const listener of this.#listeners) listener();
    });
    this.#refreshing = next.catch(() => undefined);
    return next;
  }

  /** Calls the tool `name` on the session's own client. */
  call(name: string, args: Record<string, unknown>, session: McpSession, signal: AbortSignal): Promise<McpCallResult> {
    const options = { signal, ...(this.#callTimeoutMs !== undefined ? { timeoutMs: this.#callTimeoutMs } : {}) };
    return this.#sessions.callTool(session, { name, arguments: args }, options);
  }

  async close(): Promise<void> {
    await this.#sessions.close();
    await this.#catalog.close().catch(() => undefined);
  }
}
