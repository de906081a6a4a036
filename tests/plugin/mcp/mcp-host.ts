/**
 * The agent server of the MCP tests: the kit's routes and a chat route on Koa, the runtime offering the
 * tools of the MCP servers the test connects (the demo's meeting server, say) through `mcpElicitation`,
 * over whichever MCP transport the test makes: one per client, since each session calls on its own.
 */
import type { TestContext } from 'node:test';
import OpenAI from 'openai';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { allowAnyCaller, createAskUserKit, openStore, type PendingStore } from '../../../plugin/index.js';
import { startMeetingServer, type MeetingServerOptions } from '../../../demo/mcp/meeting-server.js';
import { serveKoaChat } from '../../helpers/koa-chat-server.js';
import type { ChatInput } from '../../../plugin/loop/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { loopToolsOf } from '../../../demo/mcp/mcp-tools.js';
import { McpServerTools } from '../../../demo/mcp/mcp-server-tools.js';
import { mcpElicitation } from '../../../plugin/mcp/index.js';
import { aiSdkRuntime, fromLoopTools } from '../../../plugin/ai-sdk/index.js';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { RunHost } from '../../../plugin/core/host.js';
import type { ScriptedModel } from '../../helpers/scripted-model.js';
import { postStreamUntil } from '../../demo/sse-client.js';

export interface McpHostOptions {
  /** Where the reasons of elicitations declined unseen go. */
  declined?: string[];
  ttlMs?: number;
  /** The plugin's agent loop, or the AI SDK runtime (the same tools through `fromLoopTools`, read per run). @default 'loop' */
  runtime?: 'loop' | 'ai-sdk';
  /** How often an open card reports progress to the MCP server. */
  keepAliveMs?: number;
  /** A call's timeout while no card of it is open. */
  callTimeoutMs?: number;
}

/** The agent server: the kit's routes and a chat route on Koa, the runtime with the MCP server's two tools. */
export async function startMcpHost(
  store: PendingStore,
  model: ScriptedModel,
  transports: (() => Transport) | Array<() => Transport>,
  { declined = [], ttlMs, runtime = 'loop', keepAliveMs, callTimeoutMs }: McpHostOptions = {},
) {
  const elicitation = mcpElicitation({
    locale: 'en',
    onDeclined: (reason) => void declined.push(reason),
    ...(keepAliveMs ? { keepAliveMs } : {}),
  });
  const servers: McpServerTools[] = [];
  for (const transport of [transports].flat()) {
    servers.push(await McpServerTools.connect({ transport, elicitation, ...(callTimeoutMs ? { callTimeoutMs } : {}) }));
  }
  // The demo's own mapping of MCP tools to loop tools (demo/mcp/mcp-tools.ts), as `npm run demo` uses it.
  const mcpTools = loopToolsOf(servers);
  const tools = mcpTools.tools;
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: { audit() {} },
    ...(ttlMs ? { ttlMs } : {}),
    runtime: elicitation.around<RunHost & { chat(input: ChatInput): Promise<void> }>(
      runtime === 'ai-sdk'
        ? aiSdkRuntime({
            model: createOpenAICompatible({ name: 'scripted', baseURL: model.baseURL, apiKey: 'test' }).chatModel('m'),
            tools: (sessionId, sse) => fromLoopTools(mcpTools.tools)(sessionId, sse),
            locale: 'en',
          })
        : agentRuntime({ client: new OpenAI({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }), model: 'm', tools }),
    ),
  });
  const { url, post, close } = await serveKoaChat(kit);
  return {
    url,
    post,
    mcpTools,
    pending: async (sessionId: string) =>
      (await (await fetch(`${url}/api/interactions/pending?sessionId=${sessionId}`)).json()) as { pending: any },
    /** Starts a chat and resolves once its stream shows the card; `rest` is the whole stream once it ends. */
    async chatUntilCard(sessionId: string) {
      const {
        data: card,
        rest,
        leave,
      } = await postStreamUntil(`${url}/api/chat`, { sessionId, message: 'book it' }, 'user_input_required');
      return { card, rest, leave };
    },
    async close() {
      await close();
      await mcpTools.close();
      await kit.close();
    },
  };
}

/** The transport of a client to the Streamable HTTP MCP server at `url`. */
export const httpTransport = (url: string) => () => new StreamableHTTPClientTransport(new URL(url));

/**
 * One test's world: a store, the demo's meeting servers (asking with `schema` unless told otherwise) and
 * agent servers on that store (connected to one MCP server or several), all closed after the test, agent
 * servers first.
 */
export async function mcpWorld(t: TestContext, model: ScriptedModel, schema: unknown) {
  const store = await openStore('memory');
  const hosts: Array<{ close(): Promise<void> }> = [];
  const servers: Array<{ close(): Promise<void> }> = [];
  t.after(async () => {
    for (const h of hosts) await h.close();
    for (const m of servers) await m.close();
    await store.close();
  });
  return {
    store,
    async meetings(requestedSchema: unknown = schema, connectUrl?: string, options: MeetingServerOptions = {}) {
      const m = await startMeetingServer({ requestedSchema, ...(connectUrl ? { connectUrl } : {}), ...options });
      servers.push(m);
      return m;
    },
    /** Closed with the world. */
    keep<T extends { close(): Promise<void> }>(server: T): T {
      servers.push(server);
      return server;
    },
    async host(mcpUrl: string | string[], options: McpHostOptions = {}) {
      const h = await startMcpHost(store, model, [mcpUrl].flat().map(httpTransport), options);
      hosts.push(h);
      return h;
    },
  };
}
