/**
 * `npm run demo`: the demo agent server — page and API on one port (docs/protocol.md §7). With no
 * OPENAI_BASE_URL it starts the embedded scripted assistant on another loopback port and talks to it
 * through the same `openai` SDK path a real endpoint would take.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener } from 'node:http';
import OpenAI from 'openai';
import { openStore, parseStoreUrl, webhookNotifier } from 'ask-user-kit/plugin';
import { maskedLogger } from 'ask-user-kit/plugin/loop';
import { listeningOrigin, readDemoConfig } from './config.js';
import { standaloneWidgetDir } from './static-files.js';
import { createDemoApp } from './app.js';
import { demoToolsFor } from './tools.js';
import { startMeetingServer } from './mcp/meeting-server.js';
import { connectMcpTools } from './mcp/mcp-tools.js';
import { mcpElicitation } from 'ask-user-kit/plugin/mcp';
import { SCRIPTED_MODEL_NAME, startScriptedAssistant, type ChatCompletionsServer } from './scripted-model/index.js';

const SWEEP_EVERY_MS = 60_000;

async function main() {
  const config = readDemoConfig();
  const target = parseStoreUrl(config.storeUrl);
  if (target.kind === 'sqlite') await mkdir(dirname(target.file), { recursive: true });
  const store = await openStore(config.storeUrl);

  let scripted: ChatCompletionsServer | undefined;
  let baseURL = config.baseURL;
  if (!baseURL) {
    scripted = await startScriptedAssistant();
    baseURL = scripted.baseURL;
  }
  const model = config.model ?? (scripted ? SCRIPTED_MODEL_NAME : 'gpt-4o-mini');
  // The SDK's own log lines may quote upstream text: they go through the same key masking as ours.
  const client = new OpenAI({ baseURL, apiKey: config.apiKey, maxRetries: 1, logger: maskedLogger() });

  // A tool that needs approval (§12) prints one line each time it runs (no arguments): a run is countable in the log.
  const demoTools = demoToolsFor(config.locale, {
    onRun: (tool, sessionId) => console.log(JSON.stringify({ type: 'demo.tool_run', tool, sessionId, at: new Date().toISOString() })),
  });

  // MCP (§10): the servers of ASK_USER_MCP_URL, or the demo's own meeting server; their elicitations reach the card.
  const meetings = config.mcpUrls.length ? undefined : await startMeetingServer();
  const elicitation = mcpElicitation({ locale: config.locale });
  // A tool name an MCP server shares with a demo tool is offered with its server's prefix.
  const mcp = await connectMcpTools(meetings ? [meetings.url] : config.mcpUrls, elicitation, {
    reserved: demoTools.map((tool) => tool.name),
  });

  const widgetDir = standaloneWidgetDir();
  if (config.answerLinks && !existsSync(join(widgetDir, 'ask-user-kit.standalone.js'))) {
    throw new Error(
      'ASK_USER_ANSWER_LINKS=1: the link page loads the widget\'s standalone bundle (dist/widget/ask-user-kit.standalone.js), which is not built; run "npx vite build" (npm run demo does)',
    );
  }

  // Listening first: answer links are built on http://HOST:PORT when ASK_USER_PUBLIC_URL is unset, and PORT=0
  // is known only now. Nothing is answered until the app is ready, and the ready line comes after.
  let listener: RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const server = createServer((req, res) => listener(req, res)).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const publicUrl = config.answerLinks ? (config.answerLinks.publicUrl ?? listeningOrigin(config.host, port)) : undefined;

  const demo = await createDemoApp({
    // Read at each turn: the MCP servers' lists change (notifications/tools/list_changed).
    tools: () => [...demoTools, ...mcp.tools],
    elicitation,
    store,
    client,
    model,
    hostMode: config.hostMode,
    ttlMs: config.ttlMs,
    locale: config.locale,
    maxRounds: config.maxRounds,
    trace: config.trace,
    server: config.server,
    runtime: config.runtime,
    aiSdkApi: config.aiSdkApi,
    staticDir: fileURLToPath(new URL('./dist/', import.meta.url)),
    widgetDir,
    // §13: the webhook when configured, Web Push always (the page's switch subscribes), answer links when asked for.
    notifiers: config.webhook ? [webhookNotifier(config.webhook)] : [],
    notifyAfterMs: config.notifyAfterMs,
    webPush: { vapid: config.vapid, allowPrivateEndpoints: config.pushAllowPrivate },
    ...(publicUrl ? { answerLinks: { publicUrl } } : {}),
  });
  listener = demo.listener;

  // A URL's label never shows its password.
  const label = 'label' in target ? target.label : config.storeUrl;
  console.log(
    `model: ${scripted ? `embedded scripted assistant at ${baseURL}` : `${model} at ${printableUrl(baseURL)}`}; store: ${label}; server: ${config.server}; runtime: ${config.runtime}${config.runtime === 'ai-sdk' ? ` (${config.aiSdkApi})` : ''}; host: ${config.hostMode}; developer trace: ${config.trace ? 'on (ASK_USER_TRACE=1: free text kept in memory)' : 'off'}`,
  );
  console.log(
    `notifications: after ${config.notifyAfterMs} ms; web push: on (VAPID keys ${config.vapid.publicKey ? 'from ASK_USER_VAPID_*' : 'kept in the store'}${config.pushAllowPrivate ? '; private endpoints allowed' : ''}); webhook: ${config.webhook ? 'on' : 'off'}; answer links: ${publicUrl ? `on at ${publicUrl}` : 'off'}`,
  );
  console.log(`ask-user-kit demo listening on http://${config.host}:${port}`);

  // What a crash left half-done is finished in the background, a page of sessions at a time, so the
  // server listens at once whatever the number of open questions; a new message to one of those
  // sessions meanwhile rolls it forward first.
  const sweepOnce = (startup: boolean) =>
    demo.loop
      .sweep()
      .then((report) => {
        if (startup ? report.checked : report.rolledForward || report.expired || report.resumed)
          console.log(
            `${startup ? 'startup ' : ''}sweep: ${report.checked} paused run(s) checked, ${report.rolledForward} rolled forward, ${report.expired} expired, ${report.resumed} continued`,
          );
      })
      .catch((err) => console.error('[demo] sweep failed', err));
  void sweepOnce(true);
  const sweeper = setInterval(() => void sweepOnce(false), SWEEP_EVERY_MS);
  sweeper.unref();

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(sweeper);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await demo.close();
    await mcp.close();
    await meetings?.close();
    await store.close();
    await scripted?.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`ask-user-kit demo failed to start: ${(err as Error).message}`);
  if ((err as { code?: string }).code) console.error(`code: ${(err as { code?: string }).code}`);
  process.exit(1);
});

/** A base URL for the startup line: credentials and query (where some gateways put a key) left out. */
function printableUrl(url: string): string {
  try {
    const u = new URL(url);
    const masked = u.username || u.password || u.search ? ' (credentials/query hidden)' : '';
    return `${u.origin}${u.pathname}${masked}`;
  } catch {
    return '(unparsable OPENAI_BASE_URL)';
  }
}
