/**
 * The tools of the MCP servers the demo connects to (`ASK_USER_MCP_URL`), offered to the model as loop
 * tools: each call runs on the session's own MCP client through the kit's elicitation bridge, so an
 * elicitation the server sends meanwhile shows up as a card on the chat stream of the session that made
 * the call (contract §10).
 *
 * The view is live: after a server's `notifications/tools/list_changed`, `tools` lists what the servers
 * offer now. A LoopTool handed out earlier reads its description and schema from the latest list, and a
 * tool the server dropped answers the model that it is gone. A runtime that reads its tools once (the
 * agent loop's registry) learns of tools added later only when the host hands it `tools` again.
 *
 * Approval (contract §12) follows the tool's annotations through `mcpApprovalPolicy`: a tool that says
 * `destructiveHint: true` runs only once the user approved the call on the card, and one that says
 * `idempotentHint: true` may run again after a crash. Read from the latest list, as the description is.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LoopTool } from 'ask-user-kit/plugin/loop';
import { mcpApprovalPolicy, toolOutputOf, type McpElicitation } from 'ask-user-kit/plugin/mcp';
import { McpServerTools } from './mcp-server-tools.js';
import { exposedToolNames } from './tool-names.js';

export interface McpTools {
  /** The servers' tools as they list them now. */
  readonly tools: LoopTool[];
  close(): Promise<void>;
}

interface Bound {
  server: McpServerTools;
  tool: Tool;
}

export interface McpLoopToolsOptions {
  /** Names the host's own tools hold: an MCP tool of that name is prefixed with its server's name. */
  reserved?: readonly string[];
}

/** The tools of several MCP servers under one set of names the model can tell apart (tool-names.ts). */
export class McpLoopTools implements McpTools {
  readonly #servers: readonly McpServerTools[];
  readonly #reserved: ReadonlySet<string>;
  /** The tool each exposed name stands for now. */
  #bound = new Map<string, Bound>();
  /** One LoopTool per exposed name, kept, so a runtime holding it sees the changes. */
  readonly #views = new Map<string, LoopTool>();

  constructor(servers: readonly McpServerTools[], { reserved = [] }: McpLoopToolsOptions = {}) {
    this.#servers = servers;
    this.#reserved = new Set(reserved);
    for (const server of servers) server.onChange(() => this.#bind());
    this.#bind();
  }

  get tools(): LoopTool[] {
    return [...this.#bound.keys()].map((name) => this.#view(name));
  }

  async close(): Promise<void> {
    await Promise.all(this.#servers.map((s) => s.close()));
  }

  #bind(): void {
    const names = exposedToolNames(
      this.#servers.map((s) => ({ server: s.name, tools: s.tools.map((t) => t.name) })),
      this.#reserved,
    );
    const bound = new Map<string, Bound>();
    this.#servers.forEach((server, i) => {
      for (const tool of server.tools) bound.set(names[i]!.get(tool.name)!, { server, tool });
    });
    this.#bound = bound;
  }

  #view(name: string): LoopTool {
    const known = this.#views.get(name);
    if (known) return known;
    const current = () => this.#bound.get(name);
    const policy = () => {
      const tool = current()?.tool;
      return tool ? mcpApprovalPolicy(tool) : {};
    };
    const view: LoopTool = {
      name,
      get description() {
        const tool = current()?.tool;
        return tool ? (tool.description ?? tool.name) : `${name} (no longer offered by its MCP server)`;
      },
      get parameters() {
        return (current()?.tool.inputSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>;
      },
      get needsApproval() {
        return policy().needsApproval;
      },
      get idempotent() {
        return policy().idempotent;
      },
      run: async (args, ctx) => {
        const bound = current();
        if (!bound) return { content: `Error: the MCP server no longer offers ${name}; do not call it again`, isError: true };
        const result = await bound.server.call(bound.tool.name, args, { sessionId: ctx.sessionId, sse: ctx.sse }, ctx.signal);
        // Every content block kept (images, audio, resources); each runtime passes on what its API carries.
        return toolOutputOf(result as CallToolResult);
      },
    };
    this.#views.set(name, view);
    return view;
  }
}

/** The tools of connected MCP servers, each call on the session's own client through `elicitation`. */
export function loopToolsOf(servers: readonly McpServerTools[], options?: McpLoopToolsOptions): McpLoopTools {
  return new McpLoopTools(servers, options);
}

export interface ConnectMcpToolsOptions extends McpLoopToolsOptions {
  /** A call's timeout while no card of it is open. @default the SDK's 60 s */
  callTimeoutMs?: number;
}

/** Connects to each Streamable HTTP MCP server in `urls` and offers their tools. */
export async function connectMcpTools(
  urls: readonly string[],
  elicitation: McpElicitation,
  { callTimeoutMs, ...options }: ConnectMcpToolsOptions = {},
): Promise<McpTools> {
  const servers: McpServerTools[] = [];
  try {
    for (const url of urls) {
      const transport = () => new StreamableHTTPClientTransport(new URL(url));
      servers.push(await McpServerTools.connect({ transport, elicitation, ...(callTimeoutMs !== undefined ? { callTimeoutMs } : {}) }));
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw error;
  }
  return loopToolsOf(servers, options);
}
