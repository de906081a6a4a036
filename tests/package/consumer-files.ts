/**
 * What the package test writes into its throwaway consumer project: a file importing every entry (type-
 * checked), the README's drop-in example with what it leaves to the host, and a plain page that loads the
 * standalone bundle from the installed package. Kept as strings here, not as .ts files in the repository,
 * so the repository's own typecheck never resolves `ask-user-kit/...` against its own dist.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TEST_BROWSER_COOKIE } from '../helpers/browser-identity.js';
import type { ChatRequestBody, ScriptedTurn } from '../helpers/scripted-model.js';

/** Every export entry, used as a TypeScript consumer would: values and types from each. */
export const EVERY_ENTRY_TS = `\
import { createAskUserKit, openStore, sessionIdSchema, type AskUserKit, type PendingStore } from 'ask-user-kit/plugin';
import { koaRoutes, readJsonBody } from 'ask-user-kit/plugin/koa';
import { fetchRoutes, webSse } from 'ask-user-kit/plugin/fetch';
import { honoRoutes } from 'ask-user-kit/plugin/hono';
import { createAgentLoop, type AgentLoop, type LoopTool } from 'ask-user-kit/plugin/loop';
import { aiSdkRuntime, askUserTool } from 'ask-user-kit/plugin/ai-sdk';
import { mcpElicitation, formFromElicitation } from 'ask-user-kit/plugin/mcp';
import { AskUserCard, fetchPending, startChat, type AskUserReceipt, type AskUserRequest, type ChatEvent } from 'ask-user-kit/widget';
import * as standalone from 'ask-user-kit/widget/standalone';

export const tool: LoopTool = { name: 'lookup', description: 'Looks something up.', parameters: { type: 'object' }, run: () => 'found' };
export async function wire(store: PendingStore): Promise<AskUserKit> {
  const kit = createAskUserKit({ store, authorize: (_ctx, sessionId) => sessionId.length > 0 });
  const loop: AgentLoop | undefined = undefined;
  void [loop, createAgentLoop, readJsonBody, openStore, koaRoutes, fetchRoutes, webSse, honoRoutes, aiSdkRuntime, askUserTool, mcpElicitation, formFromElicitation];
  return kit;
}
export const sessionId: string = sessionIdSchema.parse('s-1');
export const card: AskUserCard = document.createElement('ask-user-card');
export const shown: AskUserRequest | null | undefined = card.request;
export const closed: AskUserReceipt | null | undefined = card.receipt;
export const sameClass: typeof AskUserCard = standalone.AskUserCard;
export async function firstQuestion(): Promise<ChatEvent | undefined> {
  const started = await startChat({ sessionId, message: 'hello' });
  if (!started.ok) return undefined;
  for await (const event of started.events) return event;
  return (await fetchPending(sessionId)) ? undefined : undefined;
}
`;

/**
 * A React page in TSX against the installed package: `ask-user-kit/react`'s components with typed props and
 * callbacks, and the plain tags typed in JSX once the entry is imported. The `@ts-expect-error` lines fail
 * the check if the typings ever let a wrong prop or callback through.
 */
export const REACT_PAGE_TSX = `\
import { useState } from 'react';
import { AskUserCard, AskUserProvider } from 'ask-user-kit/react';
import type { AskUserRequest, AskUserSubmitEvent } from 'ask-user-kit/widget';

export function Chat({ request }: { request: AskUserRequest }) {
  const [sent, setSent] = useState<string[]>([]);
  const onSubmit = (event: AskUserSubmitEvent) => setSent(event.detail.selections);
  return (
    <AskUserProvider endpoint="/api" sessionId="s-1" locale="en">
      <AskUserCard
        request={request}
        noAutofocus
        onAskUserSubmit={onSubmit}
        onAskUserContinued={async (event) => {
          for await (const e of event.detail.events) setSent((all) => [...all, e.event]);
        }}
      />
      {/* @ts-expect-error -- the detail of a submit has no 'text' */}
      <AskUserCard request={request} onAskUserSubmit={(event) => event.detail.text} />
      {/* @ts-expect-error -- request is an object, not a string */}
      <AskUserCard request="not a request" />
      <ask-user-card request={request} locale="en" />
      {/* @ts-expect-error -- the plain tag is typed too */}
      <ask-user-card request={42} />
      <p>{sent.join(', ')}</p>
    </AskUserProvider>
  );
}
`;

/** The README's React block, with what it leaves to the host (the session's id) supplied in front of it. */
export function readmeReactAsConsumer(readmePath: string): string {
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf('### In React');
  assert.ok(at >= 0, 'README.md has the section "### In React"');
  const block = /```tsx\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, 'the React section has a tsx block');
  return `// Supplied by the package test: what the README leaves to the host.\ndeclare const sessionId: string;\n${block[1]!}`;
}

/** plugin/ai-sdk/README.md's section with a `useChat` page: its chat route (ts) and its page (tsx). */
export const README_USE_CHAT = '## Inside a `useChat` page';

/**
 * The `useChat` section's two blocks as consumer files, each as written: the chat route, with what it
 * leaves to the host (`kit`, made with the AI SDK runtime) declared in front of it, and the page, which
 * takes everything it needs as props.
 */
export function readmeUseChatAsConsumer(readmePath: string): { route: string; page: string } {
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf(README_USE_CHAT);
  assert.ok(at >= 0, `${readmePath} has the section "${README_USE_CHAT}"`);
  const next = readme.indexOf('\n## ', at + 1);
  const section = readme.slice(at, next < 0 ? undefined : next);
  const route = /```ts\n([\s\S]*?)```/.exec(section);
  const page = /```tsx\n([\s\S]*?)```/.exec(section);
  assert.ok(route && page, 'the useChat section has a ts block (the route) and a tsx block (the page)');
  assert.match(route[1]!, /^\/\/ app\/api\/chat\/route\.ts\n/, 'the ts block is the chat route');
  return {
    route: `\
// Supplied by the package test: what the block leaves to the host, its kit made with the AI SDK runtime.
import type { LanguageModel } from 'ai';
import { createAskUserKit } from 'ask-user-kit/plugin';
import { aiSdkRuntime } from 'ask-user-kit/plugin/ai-sdk';
declare const model: LanguageModel;
declare function ownsSession(request: Request, sessionId: string): boolean;
const kit = createAskUserKit({
  authorize: (request: Request, sessionId) => ownsSession(request, sessionId),
  runtime: aiSdkRuntime({ model }),
});
// The block, as written there:
${route[1]!}`,
    page: page[1]!,
  };
}

/** The README's server snippets by framework, each the first ts block after its heading. */
export const README_SERVERS = {
  koa: '## Drop it into your Koa agent server',
  express: '### On Express 5',
  hono: '### On Hono (and any Fetch-API host)',
} as const;
export type ReadmeServer = keyof typeof README_SERVERS;

/** A README server snippet, cut out at test time so the docs cannot drift. */
export function readmeServerSnippet(readmePath: string, server: ReadmeServer): string {
  const readme = readFileSync(readmePath, 'utf8');
  const heading = README_SERVERS[server];
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `README.md has the section "${heading}"`);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, 'the section has a ts code block');
  return block[1]!;
}

/** The one tool the test's host offers the model, and what it answers. */
export const HOST_TOOL = { name: 'lookup_release', output: 'release 1.2.3 is ready' };

/** A model that asks once, then calls the host's tool, then answers with what the tool said. */
export function releaseModelTurn(body: ChatRequestBody): ScriptedTurn {
  const last = body.messages.at(-1);
  if (last?.role === 'user') {
    return {
      text: 'One question first.',
      toolCalls: [
        {
          name: 'ask_user',
          arguments: {
            title: 'Which build should ship?',
            mode: 'single',
            options: [
              { id: 'stable', label: 'Stable', recommended: true },
              { id: 'beta', label: 'Beta' },
            ],
          },
        },
      ],
    };
  }
  if (last?.role === 'tool' && String(last.content).includes('"selections"'))
    return { toolCalls: [{ name: HOST_TOOL.name, arguments: {} }] };
  return { text: `Done: ${String(last?.content)}` };
}

/** The cookie of the browser that owns the test's sessions (the test process's fetch sends it). */
export const OWNER_COOKIE = TEST_BROWSER_COOKIE;

/** Each framework's login middleware, as a host has one: the owner's cookie makes the caller user `owner`. */
const LOGIN: Record<ReadmeServer, string> = {
  koa: `import type { Middleware } from 'koa';
const login: Middleware = async (ctx, next) => {
  if ((ctx.get('cookie') ?? '').includes(OWNER)) ctx.state.user = { id: 'owner' };
  await next();
};`,
  express: `import type { RequestHandler } from 'express';
declare global {
  namespace Express {
    interface Request {
      user?: { id: string };
    }
  }
}
const login: RequestHandler = (req, _res, next) => {
  if ((req.headers.cookie ?? '').includes(OWNER)) req.user = { id: 'owner' };
  next();
};`,
  hono: `import type { MiddlewareHandler } from 'hono';
import { serve } from '@hono/node-server';
const login: MiddlewareHandler = async (c, next) => {
  if ((c.req.header('cookie') ?? '').includes(OWNER)) c.set('user', { id: 'owner' });
  await next();
};`,
};

/** The one tool the test's host offers in place of the README's `myTools`. */
const ONE_TOOL = `import type { LoopTool } from 'ask-user-kit/plugin/loop';
const myTools: LoopTool[] = [
  { name: '${HOST_TOOL.name}', description: 'Looks up the release.', parameters: { type: 'object', properties: {} }, run: () => '${HOST_TOOL.output}' },
];`;

/** What a README server snippet leaves to the host, with `tools` the host's `myTools` (and what they need). */
function serverHost(server: ReadmeServer, tools: string): string {
  return `\
// Supplied by the package test: what the README leaves to the host, and a way to learn the port.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
${LOGIN[server]}
const OWNER = ${JSON.stringify(OWNER_COOKIE)};
${tools}
function ownsSession(user: { id: string } | undefined, _sessionId: string): boolean {
  return user?.id === 'owner';
}
function listening(this: Server): void {
  console.log(\`README example listening on \${(this.address() as AddressInfo).port}\`);
}
`;
}

/** The one substitution in a server snippet: `.listen(3000)` becomes a free loopback port, printed by `listening`. */
function onFreePort(snippet: string): string {
  const listen = '.listen(3000)';
  assert.equal(snippet.split(listen).length - 1, 1, `the snippet calls ${listen} once (the test replaces it with a free port)`);
  return snippet.replace(listen, ".listen(0, '127.0.0.1', listening)");
}

/**
 * A README server snippet as a consumer file. What the snippet leaves to the host is supplied in front
 * of it: `myTools` (one tool), `login` (the owner's cookie makes the caller `owner`), `ownsSession` (the
 * owner owns every session) and `listening`. The one substitution in the snippet itself: `.listen(3000)`
 * becomes `.listen(0, '127.0.0.1', listening)`, so the server takes a free loopback port and prints it;
 * the Hono snippet, which exports its app, is served on Node after it as its last comment says. The
 * store comes from ASK_USER_STORE and the model from OPENAI_BASE_URL / OPENAI_API_KEY.
 */
export function readmeServerAsConsumer(readmePath: string, server: ReadmeServer): string {
  const snippet = readmeServerSnippet(readmePath, server);
  const host = `${serverHost(server, ONE_TOOL)}// The README's example, as written there:
`;
  if (server === 'hono') {
    assert.match(snippet, /export default app;/, 'the Hono snippet exports its app');
    return `${host}${snippet}
// Supplied by the package test: on Node, as the snippet's last line says.
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(\`README example listening on \${info.port}\`));
`;
  }
  return host + onFreePort(snippet);
}

/** The README's section with a tool that needs the user's approval (contract §12): one ts block, its `myTools`. */
export const README_APPROVAL = "### A tool that needs the user's approval";

/** The approval section's one ts block, cut out at test time (only from that section, up to the next heading). */
export function readmeApprovalBlock(readmePath: string): string {
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf(README_APPROVAL);
  assert.ok(at >= 0, `README.md has the section "${README_APPROVAL}"`);
  const next = readme.slice(at + README_APPROVAL.length).search(/\n#{1,6} /);
  const section = readme.slice(at, next < 0 ? undefined : at + README_APPROVAL.length + next);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 1, 'the approval section has one ts block');
  assert.match(blocks[0]!, /const myTools: LoopTool\[\] = /, 'the approval block defines myTools');
  return blocks[0]!;
}

/** The approval block as a consumer file, as written, with what it leaves to the host (`deployPreview`) declared in front of it. */
export function readmeApprovalAsConsumer(readmePath: string): string {
  return `\
// Supplied by the package test: what the block leaves to the host.
declare function deployPreview(branch: string): Promise<{ url: string }>;
// The README's block, as written there:
${readmeApprovalBlock(readmePath)}`;
}

/** Where the approval server's `deployPreview` appends each branch it deploys (one JSON string a line), in its working directory. */
export const DEPLOY_LOG = 'deploy-preview.log';

/** The preview URL the approval server's `deployPreview` answers for a branch. */
export const previewUrl = (branch: string) => `https://preview.example.test/${branch}`;

/**
 * The README's Koa server with the approval block's `myTools` in place of the test's one tool: the block
 * as written, with `deployPreview` supplied in front of it (it appends its branch to DEPLOY_LOG before it
 * answers, so a call is on disk before its result is streamed), then the Koa snippet as in
 * `readmeServerAsConsumer`.
 */
export function readmeApprovalServerAsConsumer(readmePath: string): string {
  const tools = `\
import { appendFileSync } from 'node:fs';
async function deployPreview(branch: string): Promise<{ url: string }> {
  appendFileSync(${JSON.stringify(DEPLOY_LOG)}, JSON.stringify(branch) + '\\n');
  return { url: \`${previewUrl('${branch}')}\` };
}
// The README's approval block, as written there: its myTools are the host's tools.
${readmeApprovalBlock(readmePath)}`;
  return `${serverHost('koa', tools)}// The README's Koa example, as written there:
${onFreePort(readmeServerSnippet(readmePath, 'koa'))}`;
}

/** A model that calls `deploy_preview` on "deploy <branch>", then answers with what the tool returned. */
export function deployModelTurn(body: ChatRequestBody): ScriptedTurn {
  const last = body.messages.at(-1);
  const branch = last?.role === 'user' ? /^deploy (\S+)/.exec(String(last.content))?.[1] : undefined;
  if (branch) return { toolCalls: [{ name: 'deploy_preview', arguments: { branch } }] };
  return { text: `Deployed: ${String(last?.content)}` };
}

/** The README's Next.js recipe: its two blocks, the shared kit module and the catch-all route file. */
export const README_NEXT = '### On Next.js (App Router), Bun, Deno';

/**
 * The Next.js recipe as consumer files, as a Next.js app lays them out: `lib/ask-user.ts` (what the block
 * leaves to the host, `ownsSession` and `myTools`, supplied in front of it) and
 * `app/api/[...ask]/route.ts` as written; a `tsconfig.json` with the `@/*` path create-next-app writes;
 * and `next-host.ts`, which calls the route file's `GET` and `POST` as the App Router does (a `Request`
 * and `{ params }` in, a `Response` out) on a loopback port.
 */
export function readmeNextAsConsumer(readmePath: string): Record<string, string> {
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf(README_NEXT);
  assert.ok(at >= 0, `README.md has the section "${README_NEXT}"`);
  const blocks = [...readme.slice(at).matchAll(/```ts\n([\s\S]*?)```/g)].slice(0, 2).map((m) => m[1]!);
  assert.equal(blocks.length, 2, 'the Next.js section has its two ts blocks');
  const [kitModule, routeFile] = blocks as [string, string];
  assert.match(kitModule, /^\/\/ lib\/ask-user\.ts\n/, 'the first block is lib/ask-user.ts');
  assert.match(routeFile, /^\/\/ app\/api\/\[\.\.\.ask\]\/route\.ts\n/, 'the second block is the catch-all route file');
  const host = `\
// Supplied by the package test: what the README leaves to the host.
import type { LoopTool } from 'ask-user-kit/plugin/loop';
const OWNER = ${JSON.stringify(OWNER_COOKIE)};
const myTools: LoopTool[] = [
  { name: '${HOST_TOOL.name}', description: 'Looks up the release.', parameters: { type: 'object', properties: {} }, run: () => '${HOST_TOOL.output}' },
];
function ownsSession(request: Request, _sessionId: string): boolean {
  return (request.headers.get('cookie') ?? '').includes(OWNER);
}
// The README's block, as written there:
`;
  const nextHost = `\
// Supplied by the package test: the route file's handlers called as Next.js's App Router calls them.
import { getRequestListener } from '@hono/node-server';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as route from './app/api/[...ask]/route.ts';

if (route.runtime !== 'nodejs') throw new Error('the route file asks for the Node.js runtime');
const listener = getRequestListener(async (request: Request) => {
  const ask = new URL(request.url).pathname.replace(/^\\/api\\//, '').split('/');
  const handler = request.method === 'GET' ? route.GET : request.method === 'POST' ? route.POST : undefined;
  if (!handler) return new Response(null, { status: 405 });
  return handler(request, { params: Promise.resolve({ ask }) });
});
const server = createServer(listener).listen(0, '127.0.0.1', () =>
  console.log(\`README example listening on \${(server.address() as AddressInfo).port}\`),
);
`;
  return {
    'lib/ask-user.ts': host + kitModule,
    'app/api/[...ask]/route.ts': routeFile,
    'next-host.ts': nextHost,
    'tsconfig.json': JSON.stringify({ compilerOptions: { paths: { '@/*': ['./*'] } } }, null, 2),
  };
}

/** TypeScript settings of a consumer: strict, declaration files checked too, under one module resolution. */
export function consumerTsconfig(resolution: 'nodenext' | 'bundler', files: string[], types: string[], jsx = false): string {
  return JSON.stringify(
    {
      compilerOptions: {
        ...(jsx ? { jsx: 'react-jsx', lib: ['es2022', 'dom', 'dom.iterable'] } : {}),
        target: 'es2022',
        module: resolution === 'nodenext' ? 'nodenext' : 'preserve',
        moduleResolution: resolution,
        strict: true,
        noEmit: true,
        // Checks the package's .d.ts files as well: a type they import from a package the consumer does
        // not have would otherwise pass silently as `any`.
        skipLibCheck: false,
        types,
        // create-next-app's alias, which the Next.js recipe's route file imports its kit module by.
        paths: { '@/*': ['./*'] },
        allowImportingTsExtensions: true,
      },
      files,
    },
    null,
    2,
  );
}

/**
 * A plain page: the standalone bundle from the installed package by a <script type="module">, no build
 * and no import map. The card restores the session's pending question with `fetchPending`, answers go
 * through `<ask-user-provider>`, and the continuation's events are collected on `window`.
 */
export function standalonePage(bundlePath: string, sessionId: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>ask-user-kit standalone</title>
  <script type="module" src="${bundlePath}"></script>
</head>
<body>
  <ask-user-provider endpoint="/api" session-id="${sessionId}" locale="en">
    <ask-user-card no-autofocus></ask-user-card>
  </ask-user-provider>
  <script type="module">
    import * as kit from '${bundlePath}';
    window.kitExports = Object.keys(kit).sort();
    window.continued = [];
    const card = document.querySelector('ask-user-card');
    card.addEventListener('ask-user-continued', async (ev) => {
      for await (const e of ev.detail.events) window.continued.push(e);
      window.runEnded = true;
    });
    card.request = await kit.fetchPending('${sessionId}', { endpoint: '/api' });
    document.body.dataset.ready = 'true';
  </script>
</body>
</html>
`;
}
