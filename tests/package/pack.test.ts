/**
 * The package a host installs. `npm pack` (its prepack step builds dist/) on a copy of the working tree,
 * then checks of the tarball: what it holds, publint, "are the types wrong". Then a throwaway consumer
 * project installs the tarball, offline, with nothing but what the README tells a host to install, and
 * uses it as a host would: plain Node imports every entry, TypeScript (nodenext and bundler) checks a
 * file using every entry, a React page in TSX, the README's examples and plugin/ai-sdk/README.md's
 * useChat page and chat route, each README server (Koa, Express, Hono, the Next.js route file) runs as
 * written and serves real requests against a scripted OpenAI-compatible model on loopback (the owner
 * chats and answers, a stranger gets 403), the Koa server with the README's approval section's tool
 * pauses on its approval card and runs the approved, edited call once (contract §12), and Chromium loads
 * the standalone bundle from the installed package with a plain <script type="module"> and answers the
 * server's question with it.
 *
 * No step leaves loopback: the consumer installs with `npm ci --offline` from a lock file cut out of
 * ours (tests/package/consumer-lock.ts), so npm takes every tarball from its cache, which our own
 * `npm ci` filled. Install scripts are off there, and a check shows none in the package's dependency tree
 * would have run; the examples run on the memory store (ASK_USER_STORE=memory, which they read).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { answerBody, first, getJson, postStream, shape } from '../demo/sse-client.js';
import { consumerLock, type PackageJson } from './consumer-lock.js';
import { readTarball } from './tarball.js';
import {
  consumerTsconfig,
  EVERY_ENTRY_TS,
  REACT_PAGE_TSX,
  readmeReactAsConsumer,
  HOST_TOOL,
  releaseModelTurn,
  OWNER_COOKIE,
  README_SERVERS,
  readmeNextAsConsumer,
  readmeServerAsConsumer,
  readmeUseChatAsConsumer,
  standalonePage,
  type ReadmeServer,
  readmeApprovalAsConsumer,
  readmeApprovalServerAsConsumer,
  deployModelTurn,
  DEPLOY_LOG,
  previewUrl,
} from './consumer-files.js';

const root = resolve(new URL('../../', import.meta.url).pathname);
const bin = (name: string) => join(root, 'node_modules/.bin', name);

/** The entries a consumer imports, and which of them load in plain Node (the standalone one is browser-only: lit inside). */
const ADAPTERS = ['./plugin/koa', './plugin/express', './plugin/hono', './plugin/fetch'] as const;
/** Runtimes and bridges whose peer (`ai`, the MCP SDK) the consumer installs like the adapters' peers. */
const RUNTIMES = ['./plugin/ai-sdk', './plugin/mcp'] as const;
const ENTRIES = ['./plugin', './plugin/loop', ...ADAPTERS, ...RUNTIMES, './widget', './widget/standalone', './react'] as const;
const NODE_ENTRIES = ['./plugin', './plugin/loop', ...ADAPTERS, ...RUNTIMES, './widget', './react'] as const;
const STANDALONE = 'dist/widget/ask-user-kit.standalone.js';
/** The README's server snippets, each run as written in the consumer. */
const SERVERS = [...(Object.keys(README_SERVERS) as ReadmeServer[]), 'next'] as const;
type ExampleServer = (typeof SERVERS)[number];
/** The file the consumer's Node runs for each example; the Next.js recipe runs through its route-file host. */
const serverFile = (server: ExampleServer) => (server === 'next' ? 'next-host.ts' : `server-${server}.ts`);
/** The README's Koa server with the approval section's `myTools` (contract §12), and that section's block alone. */
const APPROVAL_SERVER = 'server-koa-approval.ts';
const APPROVAL_BLOCK = 'readme-approval.ts';
/** Next.js resolves `@/…` and extensionless imports itself; in plain Node, tsx (from this repository) does it as Next.js does. */
const runArgs = (server: ExampleServer) =>
  server === 'next'
    ? ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/esm/index.mjs')).href, serverFile(server)]
    : [serverFile(server)];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** npm's own variables from an enclosing `npm test` would point a nested npm at this repository: keep only where its cache and config are. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_registry']);
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !keep.has(key.toLowerCase())) continue;
    if (/^(OPENAI_|ASK_USER_)/.test(key) || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

function run(command: string, args: string[], cwd: string, env = cleanEnv(), timeoutMs = 180_000): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

const show = (r: Run) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`.slice(-6000);

/** Every bare module specifier a JS or .d.ts file imports (static, dynamic, `import("x")` types, re-exports). */
function bareSpecifiers(code: string): Set<string> {
  const found = new Set<string>();
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g)) {
    const spec = m[2]!;
    if (!spec.startsWith('.') && !spec.startsWith('/')) found.add(spec);
  }
  return found;
}
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec);

/**
 * A copy of the working tree without installs, builds, evidence or hidden entries, sharing the
 * repository's node_modules, so the pack's clean build never touches the dist/ other tests may be
 * reading. Files that vanish while copying (another test's temporary files) are skipped.
 */
function copyWorkingTree(from: string, to: string): void {
  const skip = new Set(['node_modules', 'dist', '.git', '.data', '.evidence']);
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skip.has(entry.name) || (entry.name.startsWith('.') && entry.name !== '.npmrc') || entry.name.includes('.timestamp-')) continue;
    const source = join(from, entry.name);
    try {
      if (entry.isDirectory()) copyWorkingTree(source, join(to, entry.name));
      else if (entry.isFile()) copyFileSync(source, join(to, entry.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** Serves the consumer's files, and forwards /api/* to the README example's server (so the page is same-origin). */
function startPageServer(dir: string, apiPort: () => number): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.json': 'application/json',
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/api/')) {
      const upstream = httpRequest(
        { host: '127.0.0.1', port: apiPort(), method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
      return;
    }
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const file = resolve(dir, `.${decodeURIComponent(url.pathname)}`);
    if (req.method !== 'GET' || !file.startsWith(dir + sep)) return void res.writeHead(404).end();
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })),
  );
}

/** The README example under the consumer's Node, until it prints its port. */
async function startExample(
  t: TestContext,
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ url: string; port: number; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d));
  t.after(() => void child.kill('SIGKILL'));
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the example did not start in 20 s:\n${output}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d;
      const m = /README example listening on (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the example exited ${code}:\n${output}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, port, child, output: () => output };
}

test('the packed package installs offline into a consumer project and works there as the README says', { timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'ask-user-kit-package-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  const src = join(work, 'src');
  const out = join(work, 'packed');
  const consumer = join(work, 'consumer');
  mkdirSync(out);
  mkdirSync(consumer);
  const state: { tarball?: string; files?: Map<string, Buffer>; packed?: PackageJson; installed?: boolean } = {};

  // The build (tsc, the widget's bundles) runs inside this step: on 2 shared cores under load it can pass the
  // runner's 120 s default for one test, so the step has the whole test's budget.
  await t.test('npm pack runs the build and packs dist/, the README and nothing else', { timeout: 300_000 }, async () => {
    copyWorkingTree(root, src);
    symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'), 'dir');
    const packed = await run('npm', ['pack', '--pack-destination', out], src);
    assert.equal(packed.code, 0, `npm pack failed:\n${show(packed)}`);
    const tgz = readdirSync(out).filter((f) => f.endsWith('.tgz'));
    assert.equal(tgz.length, 1, `one tarball: ${tgz.join(', ')}`);
    const tarball = join(out, tgz[0]!);
    const files = readTarball(tarball);
    const pkg = JSON.parse(files.get('package.json')!.toString('utf8')) as PackageJson;
    const names = [...files.keys()].sort();

    // Only the build, the package's own docs and package.json.
    const allowed =
      /^(package\.json|README\.md|LICENSE(\.md)?|plugin\/(loop|ai-sdk)\/README\.md|dist\/plugin\/.+\.(js|d\.ts)|dist\/widget\/[^/]+\.d\.ts|dist\/widget\/ask-user-kit(\.[\w-]+)?\.js|dist\/widget\/react\.js|dist\/widget\/custom-elements\.json|docs\/protocol\.md)$/;
    assert.deepEqual(
      names.filter((n) => !allowed.test(n)),
      [],
      'nothing but dist/, README and package.json',
    );
    assert.deepEqual(
      names.filter((n) => /(^|\/)(tests?|bench|demo|screenshots)\//.test(n) || /\.(png|map|ts\.map|tsbuildinfo)$/.test(n)),
      [],
    );
    for (const must of [
      'dist/plugin/index.js',
      'dist/plugin/index.d.ts',
      'dist/plugin/loop/index.js',
      'dist/plugin/loop/index.d.ts',
      'dist/widget/ask-user-kit.js',
      STANDALONE,
      'dist/widget/index.d.ts',
      'dist/widget/custom-elements.json',
      'README.md',
      'LICENSE',
    ]) {
      assert.ok(files.has(must), `the tarball has ${must}`);
    }
    const size = statSync(tarball).size;
    const unpacked = [...files.values()].reduce((sum, b) => sum + b.length, 0);
    // A budget, not a content check (the allowed paths above are that): each runtime and adapter adds its
    // module's .js and .d.ts on purpose, so the count follows the entries the package offers.
    // Raised from 230 with contract §11 (the event log and its three backends, the run stream, the follow
    // and stop routes, the widget's reconnecting reader): each is a module of its own.
    // Then from 260 with contract 1.2's rest: §12's approval policy, §13's notifiers (the scheduler, Standard
    // Webhooks, Web Push with its key store, subscriptions and endpoint guard, answer links and their page,
    // the push routes) and §14's PostgreSQL store (its backend, schema, connections, listener and log).
    assert.ok(files.size < 330, `${files.size} files`);
    // Raised from 600 KB with the Responses runtime, several-question cards, the AI SDK runtime, the MCP bridge
    // and the widget's lazy Markdown chunk (84 KB of it); then from 850 KB with the chat handlers, the error
    // helpers, the MCP bridge's per-session clients and clocks, tool media and Responses reasoning (each
    // .d.ts keeps its documentation); the JavaScript ships without comments.
    // Then from 290 KB / 1 MB with §11, the same modules; then with §12's approval card, a lazily loaded
    // chunk per bundle that carries its JSON Schema validator (about 12 KB gzip each).
    // Then from 380 KB / 1.3 MB with the same 1.2 modules as the file count above.
    assert.ok(size < 440_000 && unpacked < 1_500_000, `${size} bytes packed, ${unpacked} unpacked`);

    // package.json: ESM only, every export has its types first and a file behind it, nothing runs on install.
    assert.equal(pkg.type, 'module');
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      assert.equal(pkg.scripts?.[hook], undefined, `no ${hook} script runs in a host's install`);
    for (const entry of ENTRIES) {
      const target = pkg.exports?.[entry] as Record<string, string> | undefined;
      assert.ok(target && typeof target === 'object', `exports["${entry}"] is a conditions object`);
      assert.equal(Object.keys(target)[0], 'types', `exports["${entry}"] lists "types" first`);
      for (const file of Object.values(target))
        assert.ok(files.has(file.replace(/^\.\//, '')), `exports["${entry}"] → ${file} is in the tarball`);
    }

    // What the published code imports is what the package declares: a host's install brings exactly that.
    // The package's own name is an import of itself (ask-user-kit/react uses ask-user-kit/widget): Node and
    // bundlers resolve it through the package's exports.
    const runtime = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    const typed = new Set([...runtime, ...[...runtime].filter((n) => n.startsWith('@types/')).map((n) => n.slice('@types/'.length))]);
    const undeclared: string[] = [];
    for (const [name, body] of files) {
      const code = body.toString('utf8');
      if (name === STANDALONE) {
        assert.deepEqual(
          [...bareSpecifiers(code)],
          [],
          'the standalone bundle imports nothing by name (a plain <script type="module"> has no resolver)',
        );
      } else if (name.endsWith('.d.ts')) {
        for (const spec of bareSpecifiers(code)) if (!isBuiltin(spec) && !typed.has(packageOf(spec))) undeclared.push(`${name}: ${spec}`);
        // `/// <reference types="node" />` would need @types/node, which the package does not declare.
        for (const m of code.matchAll(/<reference\s+types\s*=\s*["']([^"']+)["']/g))
          if (!typed.has(m[1]!)) undeclared.push(`${name}: reference types ${m[1]}`);
      } else if (name.endsWith('.js')) {
        for (const spec of bareSpecifiers(code)) if (!isBuiltin(spec) && !runtime.has(packageOf(spec))) undeclared.push(`${name}: ${spec}`);
      }
    }
    assert.deepEqual(undeclared, [], 'every package the published files import is a dependency or peer dependency');
    Object.assign(state, { tarball, files, packed: pkg });
  });

  await t.test('publint and "are the types wrong" find no problem in the tarball', async (t) => {
    if (!state.tarball) return t.skip('no tarball');
    const publint = await run(bin('publint'), ['run', state.tarball, '--strict', '--level', 'suggestion'], work);
    assert.equal(publint.code, 0, `publint:\n${show(publint)}`);
    assert.match(publint.stdout, /All good!/, `publint has suggestions:\n${show(publint)}`);

    // ESM only: CommonJS `require` (node16 from CJS) and node10 resolution are out of scope by design.
    const attw = await run(bin('attw'), [state.tarball, '--profile', 'esm-only', '--format', 'json'], work);
    assert.equal(attw.code, 0, `attw:\n${show(attw)}`);
    const report = JSON.parse(attw.stdout) as {
      analysis: {
        entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string }; visibleProblems?: number[] }> }>;
      };
      problems?: unknown[];
    };
    for (const entry of ENTRIES) {
      const resolutions = report.analysis.entrypoints[entry]?.resolutions;
      for (const kind of ['node16-esm', 'bundler']) {
        const fileName = resolutions?.[kind]?.resolution?.fileName ?? '';
        assert.match(fileName, /\.d\.ts$/, `${entry} under ${kind} resolves to declarations (${fileName || 'nothing'})`);
        assert.deepEqual(resolutions?.[kind]?.visibleProblems ?? [], [], `${entry} under ${kind} has no problem`);
      }
    }
  });

  await t.test('a consumer project installs the tarball offline, with nothing else', async (t) => {
    if (!state.tarball || !state.packed) return t.skip('no tarball');
    const pkg = state.packed;
    const spec = `file:../packed/${state.tarball.split(sep).at(-1)}`;
    // What the README tells a host to install: the package and its peer openai, plus koa and @koa/router,
    // which the Koa example imports itself (zod, which a host's own checks may use); each at the range the package declares. Express and
    // Hono, the optional peers of their adapters, so every entry can be imported.
    const own = {
      openai: pkg.peerDependencies!.openai!,
      express: pkg.peerDependencies!.express!,
      hono: pkg.peerDependencies!.hono!,
      // The README's Hono server on Node, as its last line says.
      '@hono/node-server': (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
        .devDependencies['@hono/node-server']!,
      ai: pkg.peerDependencies!.ai!,
      '@modelcontextprotocol/sdk': pkg.peerDependencies!['@modelcontextprotocol/sdk']!,
      // The AI SDK's declarations need it under skipLibCheck: false (plugin/ai-sdk/README.md).
      '@types/json-schema': (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
        .devDependencies['@types/json-schema']!,
      koa: pkg.dependencies!.koa!,
      '@koa/router': pkg.dependencies!['@koa/router']!,
      zod: pkg.dependencies!.zod!,
      // ask-user-kit/react's optional peers, and React's types for the TSX consumer.
      react: pkg.peerDependencies!.react!,
      '@lit/react': pkg.peerDependencies!['@lit/react']!,
      '@types/react': (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
        .devDependencies['@types/react']!,
      // The AI SDK's React hook, for plugin/ai-sdk/README.md's useChat page.
      '@ai-sdk/react': (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
        .devDependencies['@ai-sdk/react']!,
    };
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { [pkg.name]: spec, ...own } }, null, 2),
    );
    const lock = consumerLock({
      repoLockPath: join(root, 'package-lock.json'),
      consumerName: 'consumer',
      consumerDependencies: own,
      packed: pkg,
      tarballPath: state.tarball,
      tarballSpec: spec,
    });
    writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(lock, null, 2));

    const ci = await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], consumer);
    const uncached = /ENOTCACHED|only-if-cached/.test(ci.stdout + ci.stderr);
    assert.equal(
      ci.code,
      0,
      `${uncached ? "npm's cache lacks a package: run `npm ci` in the repository first (it fills the cache).\n" : ''}npm ci --offline:\n${show(ci)}`,
    );
    // Every dependency edge of the installed tree is satisfied: the versions meet the tarball's ranges.
    const ls = await run('npm', ['ls', '--all', '--offline'], consumer);
    assert.equal(ls.code, 0, `npm ls finds a missing or invalid dependency:\n${show(ls)}`);
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', pkg.name, 'package.json'), 'utf8')) as PackageJson;
    assert.equal(installed.version, pkg.version);
    state.installed = true;
  });

  await t.test("nothing in the package's dependency tree runs an install script or builds a native binding", async (t) => {
    if (!state.installed || !state.tarball || !state.packed) return t.skip('not installed');
    // The package with its dependencies and required peers only, as a Redis-only host installs it: a
    // lifecycle script or a binding.gyp (npm runs node-gyp for it) would run in that host's `npm install`.
    const tree = consumerLock({
      repoLockPath: join(root, 'package-lock.json'),
      consumerName: 'consumer',
      consumerDependencies: {},
      packed: state.packed,
      tarballPath: state.tarball,
      tarballSpec: 'file:package.tgz',
    }) as { packages: Record<string, unknown> };
    const building: string[] = [];
    for (const at of Object.keys(tree.packages).filter((p) => p !== '')) {
      const dir = join(consumer, at);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
      const hooks = ['preinstall', 'install', 'postinstall'].filter((hook) => manifest.scripts?.[hook] !== undefined);
      if (readdirSync(dir).includes('binding.gyp')) hooks.push('binding.gyp');
      if (hooks.length > 0) building.push(`${at}: ${hooks.join(', ')}`);
    }
    assert.deepEqual(building, [], "a host's npm install would run these");
  });

  await t.test('plain Node imports every entry from the installed package', async (t) => {
    if (!state.installed) return t.skip('not installed');
    const script = `
      const out = {};
      for (const entry of ${JSON.stringify(NODE_ENTRIES)}) out[entry] = Object.keys(await import('ask-user-kit' + entry.slice(1))).sort();
      out['./widget/standalone'] = import.meta.resolve('ask-user-kit/widget/standalone');
      out['./package.json'] = (await import('ask-user-kit/package.json', { with: { type: 'json' } })).default.name;
      console.log(JSON.stringify(out));
    `;
    writeFileSync(join(consumer, 'import-every-entry.mjs'), script);
    const node = await run(process.execPath, ['import-every-entry.mjs'], consumer);
    assert.equal(node.code, 0, show(node));
    const out = JSON.parse(node.stdout) as Record<string, string[] | string>;
    for (const name of ['createAskUserKit', 'openStore', 'sessionIdSchema', 'askUserChatTool', 'AskUserError'])
      assert.ok(out['./plugin']!.includes(name), `plugin exports ${name}`);
    for (const name of ['koaRoutes', 'koaChat', 'koaErrors', 'koaSse', 'readJsonBody', 'sameOriginOnly'])
      assert.ok(out['./plugin/koa']!.includes(name), `plugin/koa exports ${name}`);
    for (const name of ['expressRoutes', 'expressChat', 'expressErrors', 'expressSse', 'sameOriginOnly'])
      assert.ok(out['./plugin/express']!.includes(name), `plugin/express exports ${name}`);
    for (const name of ['honoRoutes', 'honoChat', 'honoErrors', 'webSse', 'sameOriginOnly'])
      assert.ok(out['./plugin/hono']!.includes(name), `plugin/hono exports ${name}`);
    for (const name of ['fetchRoutes', 'fetchChat', 'errorResponse', 'webSse', 'crossSiteRefusal'])
      assert.ok(out['./plugin/fetch']!.includes(name), `plugin/fetch exports ${name}`);
    for (const name of ['createAgentLoop', 'ToolRegistry']) assert.ok(out['./plugin/loop']!.includes(name), `plugin/loop exports ${name}`);
    for (const name of ['AskUserCard', 'AskUserProvider', 'startChat', 'submitUserInput', 'fetchPending', 'readChatEvents'])
      assert.ok(out['./widget']!.includes(name), `widget exports ${name}`);
    assert.equal(out['./widget/standalone'], pathToFileURL(join(consumer, 'node_modules/ask-user-kit', STANDALONE)).href);
    assert.equal(out['./package.json'], 'ask-user-kit');
    (state as Record<string, unknown>).widgetExports = out['./widget'];
  });

  await t.test('TypeScript consumers typecheck every entry and the README example (nodenext and bundler)', async (t) => {
    if (!state.installed) return t.skip('not installed');
    writeFileSync(join(consumer, 'every-entry.ts'), EVERY_ENTRY_TS);
    writeFileSync(join(consumer, 'react-page.tsx'), REACT_PAGE_TSX);
    writeFileSync(join(consumer, 'react-readme.tsx'), readmeReactAsConsumer(join(root, 'README.md')));
    // plugin/ai-sdk/README.md's useChat page (React, @ai-sdk/react) and its chat route (a Fetch handler).
    const useChat = readmeUseChatAsConsumer(join(root, 'plugin/ai-sdk/README.md'));
    writeFileSync(join(consumer, 'use-chat-page.tsx'), useChat.page);
    writeFileSync(join(consumer, 'use-chat-route.ts'), useChat.route);
    const servers = (Object.keys(README_SERVERS) as ReadmeServer[]).map((server) => serverFile(server));
    for (const server of Object.keys(README_SERVERS) as ReadmeServer[])
      writeFileSync(join(consumer, serverFile(server)), readmeServerAsConsumer(join(root, 'README.md'), server));
    // The approval section's block as written (deployPreview declared), and the Koa server running it.
    writeFileSync(join(consumer, APPROVAL_BLOCK), readmeApprovalAsConsumer(join(root, 'README.md')));
    writeFileSync(join(consumer, APPROVAL_SERVER), readmeApprovalServerAsConsumer(join(root, 'README.md')));
    for (const [file, body] of Object.entries(readmeNextAsConsumer(join(root, 'README.md')))) {
      mkdirSync(dirname(join(consumer, file)), { recursive: true });
      writeFileSync(join(consumer, file), body);
    }
    const configs: Array<[string, string]> = [];
    for (const resolution of ['nodenext', 'bundler'] as const) {
      // Every entry without Node's types (a browser consumer has none); the examples are Node servers,
      // each checked on its own (each augments or reads its own framework's request).
      configs.push([`tsconfig.entries.${resolution}.json`, consumerTsconfig(resolution, ['every-entry.ts'], [])]);
      // A React page in TSX: the wrapper's components and the plain tags, typed.
      configs.push([`tsconfig.react.${resolution}.json`, consumerTsconfig(resolution, ['react-page.tsx', 'react-readme.tsx'], [], true)]);
      // The useChat page imports `ai`, whose declarations import node:http: a Next.js app has Node's types.
      configs.push([`tsconfig.use-chat-page.${resolution}.json`, consumerTsconfig(resolution, ['use-chat-page.tsx'], ['node'], true)]);
      configs.push([`tsconfig.use-chat-route.${resolution}.json`, consumerTsconfig(resolution, ['use-chat-route.ts'], ['node'])]);
      // The approval files are Koa modules too: checked with the Koa server's (no more tsc processes).
      for (const file of servers) {
        const files = file === serverFile('koa') ? [file, APPROVAL_SERVER, APPROVAL_BLOCK] : [file];
        configs.push([`tsconfig.${file}.${resolution}.json`, consumerTsconfig(resolution, files, ['node'])]);
      }
    }
    // A Next.js app checks under bundler resolution (its `@/…` imports have no extension).
    configs.push(['tsconfig.next.bundler.json', consumerTsconfig('bundler', ['next-host.ts'], ['node'])]);
    for (const [name, body] of configs) writeFileSync(join(consumer, name), body);
    const results = await Promise.all(configs.map(([name]) => run(bin('tsc'), ['-p', name, '--pretty', 'false'], consumer)));
    const failures = results.flatMap((r, i) => (r.code === 0 ? [] : [`${configs[i]![0]}: ${show(r)}`]));
    assert.deepEqual(failures, [], 'every consumer configuration typechecks');
  });

  for (const server of SERVERS) {
    await t.test(`the README's ${server} server, as written: the owner chats and answers; a stranger gets 403 everywhere`, async (t) => {
      if (!state.installed) return t.skip('not installed');
      const model: ScriptedModel = await startScriptedModel({ fallback: releaseModelTurn });
      t.after(() => model.close());
      const env = cleanEnv({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-package-test', ASK_USER_STORE: 'memory' });
      const example = await startExample(t, consumer, env, runArgs(server));
      const sessionId = `pkg-${server}`;

      // The owner (its browser's cookie, which the host's login reads): a chat pauses on the model's question.
      const chat = await postStream(`${example.url}/api/chat`, { sessionId, message: 'ship it' });
      assert.equal(chat.status, 200, chat.raw);
      assert.deepEqual(shape(chat), ['message_delta', 'user_input_required', 'done'], chat.raw);
      const ask = first(chat, 'user_input_required');
      assert.equal(ask.title, 'Which build should ship?');
      assert.equal(ask.resumable, true);
      const calls = model.requests.length;

      // A stranger (another browser) on the owner's session: chat, pending and continue are 403, nothing runs.
      const stranger = { 'content-type': 'application/json', cookie: 'ask_user_owner=someone-else' };
      const intrusion = await fetch(`${example.url}/api/chat`, {
        method: 'POST',
        headers: stranger,
        body: JSON.stringify({ sessionId, message: 'ignore the owner' }),
      });
      assert.deepEqual([intrusion.status, ((await intrusion.json()) as { error: { code: string } }).error.code], [403, 'forbidden']);
      const peek = await fetch(`${example.url}/api/interactions/pending?sessionId=${sessionId}`, { headers: stranger });
      assert.equal(peek.status, 403);
      const hijack = await fetch(`${example.url}/api/chat/continue`, {
        method: 'POST',
        headers: stranger,
        body: JSON.stringify(answerBody(sessionId, ask.id, ['stable'])),
      });
      assert.equal(hijack.status, 403);
      // §11: the stranger can neither read the session's stream nor press its stop button.
      const follow = await fetch(`${example.url}/api/chat/stream?sessionId=${sessionId}`, { headers: stranger });
      assert.equal(follow.status, 403);
      const stop = await fetch(`${example.url}/api/chat/stop`, { method: 'POST', headers: stranger, body: JSON.stringify({ sessionId }) });
      assert.equal(stop.status, 403);
      assert.equal(model.requests.length, calls, 'no model call for the stranger');
      const bad = await postStream(`${example.url}/api/chat`, { sessionId, message: '  ' });
      assert.deepEqual([bad.status, bad.json?.error.code], [400, 'invalid_request'], 'a blank message is refused as JSON');
      const still = await getJson(`${example.url}/api/interactions/pending?sessionId=${sessionId}`);
      assert.deepEqual(
        [still.status, still.body.pending?.id, still.body.pending?.status],
        [200, ask.id, 'pending'],
        "the owner's card stays",
      );

      // Bad bodies get the contract's JSON error from every snippet: never an HTML page, a stack or a path.
      const badBodies: Array<[string, string, string, number]> = [
        ['/api/chat', 'application/json', '{"sessionId":"pkg-x","message":', 400],
        ['/api/chat', 'text/plain', 'hello', 415],
        ['/api/chat', 'application/json', JSON.stringify({ sessionId, message: 'x'.repeat(70 * 1024) }), 413],
        ['/api/chat/continue', 'application/json', '{"sessionId":', 400],
      ];
      for (const [path, type, body, status] of badBodies) {
        const res = await fetch(example.url + path, { method: 'POST', headers: { 'content-type': type }, body });
        const text = await res.text();
        assert.equal(res.status, status, `${path} ${type}: ${text.slice(0, 200)}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${path} ${type}`);
        assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'invalid_request');
        assert.doesNotMatch(text, /\bat .+:\d+|file:\/\/|node_modules|<html|<pre/i, `${path} ${type}: no stack, path or page`);
      }

      // The owner answers: the run continues through the host's own tool to the reply.
      const cont = await postStream(`${example.url}/api/chat/continue`, answerBody(sessionId, ask.id, ['beta']));
      assert.equal(cont.status, 200, cont.raw);
      assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'tool_result', 'message_delta', 'done'], cont.raw);
      const results = cont.events.filter((e) => e.event === 'tool_result').map((e) => [e.data.name, e.data.content]);
      assert.deepEqual(results[0], ['ask_user', '{"selections":["beta"],"customInput":"","cancelled":false}']);
      assert.deepEqual(results[1], [HOST_TOOL.name, HOST_TOOL.output], "the host's own tool (myTools) ran");
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      assert.equal(model.requests.length, 3, 'ask, the tool call after the answer, the final answer');
      // §11 on the README's server: the answer's stream is kept, and picked up after the card's last frame it comes again.
      const pausedId = /id: (\S+)\nevent: done\n/.exec(chat.raw)?.[1];
      assert.ok(pausedId, chat.raw);
      const replay = await fetch(`${example.url}/api/chat/stream?sessionId=${sessionId}`, { headers: { 'last-event-id': pausedId } });
      assert.equal(replay.status, 200);
      assert.equal(await replay.text(), cont.raw);
    });
  }

  await t.test(
    "the README's Koa server with the approval section's tool: one card, an edit checked, approved once, a stranger 403",
    async (t) => {
      if (!state.installed) return t.skip('not installed');
      const model: ScriptedModel = await startScriptedModel({ fallback: deployModelTurn });
      t.after(() => model.close());
      const env = cleanEnv({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-package-test', ASK_USER_STORE: 'memory' });
      const example = await startExample(t, consumer, env, [APPROVAL_SERVER]);
      const sessionId = 'pkg-approval';
      const deployed = () =>
        (statSync(join(consumer, DEPLOY_LOG), { throwIfNoEntry: false }) ? readFileSync(join(consumer, DEPLOY_LOG), 'utf8') : '')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as string);

      // The owner: the model's deploy_preview call pauses the run on one approval card, nothing deployed.
      const chat = await postStream(`${example.url}/api/chat`, { sessionId, message: 'deploy feature/x' });
      assert.equal(chat.status, 200, chat.raw);
      assert.deepEqual(shape(chat), ['user_input_required', 'done'], chat.raw);
      const card = first(chat, 'user_input_required');
      assert.equal(card.mode, 'approval');
      assert.equal(card.approvals.length, 1);
      const toolCallId = card.approvals[0].toolCallId;
      assert.ok(typeof toolCallId === 'string' && toolCallId.length > 0, 'the call has an id');
      assert.deepEqual(card.approvals[0], {
        toolCallId,
        tool: 'deploy_preview',
        title: 'Deploy feature/x to a preview',
        arguments: { branch: 'feature/x' },
        editable: true,
        allowAlways: true,
        schema: {
          type: 'object',
          properties: { branch: { type: 'string', minLength: 1 } },
          required: ['branch'],
          additionalProperties: false,
        },
      });
      assert.deepEqual(first(chat, 'done'), { reason: 'paused' });
      assert.deepEqual(deployed(), [], 'nothing runs before the answer');
      const decide = (args: Record<string, unknown>) => ({
        sessionId,
        requestId: card.id,
        decisions: [{ toolCallId, decision: 'approve', arguments: args }],
        cancelled: false,
      });

      // A stranger (another browser) cannot approve the owner's card.
      const hijack = await fetch(`${example.url}/api/chat/continue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: 'ask_user_owner=someone-else' },
        body: JSON.stringify(decide({ branch: 'main' })),
      });
      assert.deepEqual([hijack.status, ((await hijack.json()) as { error: { code: string } }).error.code], [403, 'forbidden']);

      // An edit the tool's parameters refuse (minLength 1) is 422 naming the field; the card stays open.
      const refused = await postStream(`${example.url}/api/chat/continue`, decide({ branch: '' }));
      assert.equal(refused.status, 422, refused.raw);
      assert.deepEqual([refused.json?.error.code, refused.json?.error.field], ['invalid_answer', 'decisions[0].arguments.branch']);
      assert.deepEqual(deployed(), [], 'neither the stranger nor the refused edit deployed anything');
      assert.equal(model.requests.length, 1, 'no model call since the card');

      // The owner approves with an edit: deployPreview runs once, with the edited branch, and the model reads its result.
      const cont = await postStream(`${example.url}/api/chat/continue`, decide({ branch: 'feature/y' }));
      assert.equal(cont.status, 200, cont.raw);
      assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'message_delta', 'done'], cont.raw);
      const result = JSON.stringify({ url: previewUrl('feature/y') });
      const toolResult = first(cont, 'tool_result');
      assert.deepEqual([toolResult.toolCallId, toolResult.name, toolResult.content], [toolCallId, 'deploy_preview', result]);
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      assert.deepEqual(deployed(), ['feature/y'], 'deployPreview ran exactly once, with the approved edit');
      const last = model.requests.at(-1)!.messages.at(-1)!;
      assert.deepEqual([model.requests.length, last.role, last.content], [2, 'tool', result]);
      assert.equal(example.child.exitCode, null, `the example is still serving:\n${example.output()}`);
    },
  );

  await t.test("the standalone bundle from the installed package answers the Koa example's question in Chromium", async (t) => {
    if (!state.installed) return t.skip('not installed');
    // (d) A plain page loads the standalone bundle from the installed package; its card restores the
    // next session's pending question, the user answers in it, and the provider continues the run.
    const model: ScriptedModel = await startScriptedModel({ fallback: releaseModelTurn });
    t.after(() => model.close());
    const env = cleanEnv({ OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'sk-package-test', ASK_USER_STORE: 'memory' });
    const example = await startExample(t, consumer, env, runArgs('koa'));
    const paused = await postStream(`${example.url}/api/chat`, { sessionId: 'pkg-page', message: 'ship it' });
    assert.deepEqual(first(paused, 'done'), { reason: 'paused' });
    writeFileSync(join(consumer, 'standalone.html'), standalonePage(`/node_modules/ask-user-kit/${STANDALONE}`, 'pkg-page'));
    const page = await startPageServer(consumer, () => example.port);
    t.after(() => new Promise<void>((ok) => page.server.close(() => ok())));

    const executablePath =
      process.env.CHROMIUM_PATH ??
      ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => statSync(p, { throwIfNoEntry: false }));
    assert.ok(executablePath, 'Chromium is installed (bash tests/ensure-tools.sh) or CHROMIUM_PATH names it');
    // playwright gives the launch a fresh temporary profile (its own --user-data-dir) and removes it on close.
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    });
    t.after(() => browser.close());
    // The owner's browser: the host's login knows it by its cookie.
    const context = await browser.newContext();
    const [cookieName, cookieValue] = OWNER_COOKIE.split('=') as [string, string];
    await context.addCookies([{ name: cookieName, value: cookieValue, url: page.url }]);
    const tab = await context.newPage();
    const errors: string[] = [];
    const elsewhere: string[] = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('console', (m) => void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text())));
    tab.on('response', (r) => void (r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`)));
    tab.on('request', (r) => void (r.url().startsWith(page.url) || elsewhere.push(r.url())));
    await tab.goto(`${page.url}/standalone.html`);
    await tab.waitForSelector('body[data-ready="true"]');

    const defined = await tab.evaluate(() => ['ask-user-card', 'ask-user-provider'].map((n) => customElements.get(n)?.name ?? null));
    assert.ok(
      defined.every((n) => n),
      `both elements are defined: ${JSON.stringify(defined)}`,
    );
    const kitExports = await tab.evaluate(() => (window as unknown as { kitExports: string[] }).kitExports);
    assert.deepEqual(
      kitExports,
      (state as Record<string, unknown>).widgetExports,
      'the standalone bundle exports what ask-user-kit/widget does',
    );

    const card = tab.locator('ask-user-card');
    await card.locator('[part~="title"]', { hasText: 'Which build should ship?' }).waitFor();
    // As a person does: a click on the option's label checks its radio.
    const stable = card.locator('[part~="option"]', { hasText: 'Stable' });
    await stable.locator('[part~="option-label"]').click();
    assert.equal(await stable.locator('[part~="control"]').isChecked(), true);
    await card.locator('[part~="submit-button"]').click();
    await card.locator('[part~="receipt"]').waitFor();
    await tab.waitForFunction(() => (window as unknown as { runEnded?: boolean }).runEnded === true, null, { timeout: 20_000 });
    const continued = await tab.evaluate(
      () => (window as unknown as { continued: Array<{ event: string; data: any; id?: string }> }).continued,
    );
    const names = continued.map((e) => e.event);
    assert.ok(names.includes('interaction_resolved') && names.includes('tool_result'), names.join(' '));
    assert.deepEqual(continued.at(-1), { event: 'done', data: { reason: 'completed' }, id: continued.at(-1)!.id });
    assert.match(String(continued.at(-1)!.id), /^[A-Za-z0-9_-]{1,64}\.[1-9][0-9]*$/, 'each event carries its frame id (§11)');
    assert.deepEqual(errors, [], 'no page errors');
    assert.deepEqual(elsewhere, [], 'the page loads nothing from anywhere else');
    const last = model.requests.at(-1)!.messages.at(-1)!;
    assert.deepEqual(
      [last.role, last.content],
      ['tool', HOST_TOOL.output],
      'the answer from the page continued the run through the host tool',
    );
    assert.equal(example.child.exitCode, null, `the example is still serving:\n${example.output()}`);
  });
});
