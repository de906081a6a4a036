/**
 * The agent server of the MCP tests: the kit's routes and a chat route on Koa, the loop offering the demo
 * MCP server's two tools through `mcpElicitation`, over whichever MCP transport the test connects.
 */
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { allowAnyCaller, createAskUserKit, type PendingStore } from '../../../plugin/index.js';
import { serveKoaChat } from '../../helpers/koa-chat-server.js';
import type { ChatInput } from '../../../plugin/loop/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { loopToolsOf } from '../../../demo/mcp/mcp-tools.js';
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
  /** The plugin's agent loop, or the AI SDK runtime (the same tools through `fromLoopTools`). @default 'loop' */
  runtime?: 'loop' | 'ai-sdk';
}

/** The agent server: the kit's routes and a chat route on Koa, the runtime with the MCP server's two tools. */
export async function startMcpHost(
  store: PendingStore,
  model: ScriptedModel,
  transport: Transport,
  { declined = [], ttlMs, runtime = 'loop' }: McpHostOptions = {},
) {
  const elicitation = mcpElicitation({ locale: 'en', onDeclined: (reason) => void declined.push(reason) });
  const client = new Client({ name: 'ask-user-kit-test', version: '1.0.0' });
  elicitation.attach(client);
  await client.connect(transport);
  // The demo's own mapping of MCP tools to loop tools (demo/mcp/mcp-tools.ts), as `npm run demo` uses it.
  const tools = await loopToolsOf(client, elicitation);
  const kit = createAskUserKit({
    store,
    authorize: allowAnyCaller,
    logger: { audit() {} },
    ...(ttlMs ? { ttlMs } : {}),
    runtime: elicitation.around<RunHost & { chat(input: ChatInput): Promise<void> }>(
      runtime === 'ai-sdk'
        ? aiSdkRuntime({
            model: createOpenAICompatible({ name: 'scripted', baseURL: model.baseURL, apiKey: 'test' }).chatModel('m'),
            tools: fromLoopTools(tools),
            locale: 'en',
          })
        : agentRuntime({ client: new OpenAI({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 }), model: 'm', tools }),
    ),
  });
  const { url, post, close } = await serveKoaChat(kit);
  return {
    url,
    post,
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
      await client.close();
      await kit.close();
    },
  };
}
