/** The factory: defaults, options, mounting, store URLs, and failures after the answer was recorded. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Koa from 'koa';
import {
  allowAnyCaller,
  createAskUserKit,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_TTL_MS,
  memoryAuditLogger,
  type RunHost,
} from '../../plugin/index.js';
import * as plugin from '../../plugin/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { answer, errorOf, readSse, startApp } from './harness.js';
import { koaRoutes } from '../../plugin/adapters/koa.js';

describe('createAskUserKit', () => {
  it('defaults: memory store, 30 min TTL, /api prefix, 15 s heartbeat', async () => {
    const kit = createAskUserKit({ authorize: allowAnyCaller, logger: memoryAuditLogger() });
    try {
      assert.equal(kit.store.kind, 'memory');
      assert.equal(kit.ttlMs, 30 * 60 * 1000);
      assert.equal(DEFAULT_TTL_MS, 30 * 60 * 1000);
      assert.equal(DEFAULT_HEARTBEAT_MS, 15_000);
      assert.equal(kit.prefix, '/api');
    } finally {
      await kit.close();
    }
  });

  it('refuses nonsense options with a message saying what is accepted', () => {
    assert.throws(() => createAskUserKit({ authorize: allowAnyCaller, ttlMs: 0 }), /ttlMs must be a positive number/);
    assert.throws(() => createAskUserKit({ authorize: allowAnyCaller, heartbeatMs: -1 }), /heartbeatMs/);
    assert.throws(() => createAskUserKit({ authorize: allowAnyCaller, prefix: 'api' }), /prefix must be '' or start with '\/'/);
    assert.throws(
      () => createAskUserKit({ authorize: allowAnyCaller, store: 'mysql://x' }),
      (e: { code?: string }) => e.code === 'invalid_store_url',
    );
  });

  it('mounts under any prefix; a trailing slash is ignored', async () => {
    for (const [prefix, path] of [
      ['/v1/', '/v1'],
      ['', ''],
    ] as const) {
      const t = await startApp({ prefix });
      try {
        assert.equal(t.kit.prefix, path);
        const rec = await t.ask('s1');
        const res = await fetch(`${t.url}${path}/interactions/pending?sessionId=s1`);
        assert.equal(((await res.json()) as any).pending.id, rec.requestId);
        const ok = await fetch(`${t.url}${path}/chat/continue`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(answer('s1', rec.requestId)),
        });
        assert.equal(ok.status, 200);
        await ok.text();
        assert.equal((await fetch(`${t.url}/api/interactions/pending?sessionId=s1`)).status, 404, 'not under /api');
      } finally {
        await t.close();
      }
    }
  });

  it('leaves other paths to the app and answers a wrong method with 405', async () => {
    const t = await startApp();
    try {
      t.app.use((ctx, next) => {
        if (ctx.path !== '/elsewhere') return next();
        ctx.body = 'app';
      });
      assert.equal(await (await fetch(`${t.url}/elsewhere`)).text(), 'app');
      const wrong = await fetch(t.continueUrl);
      assert.equal(wrong.status, 405);
      assert.match(wrong.headers.get('allow') ?? '', /POST/);
    } finally {
      await t.close();
    }
  });

  it('a host-wide body parser that ran first does not lift the 64 KiB limit', async () => {
    const preParsed: Koa.Middleware = async (ctx, next) => {
      const chunks: Buffer[] = [];
      for await (const c of ctx.req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString();
      (ctx.request as { rawBody?: string }).rawBody = raw;
      ctx.request.body = JSON.parse(raw);
      await next();
    };
    const t = await startApp({ before: [preParsed] });
    try {
      const rec = await t.ask('s1');
      const r = await errorOf(await t.post({ ...answer('s1', rec.requestId), pad: 'x'.repeat(70_000) }));
      assert.deepEqual([r.status, r.code], [413, 'invalid_request']);
      const ok = await t.post(answer('s1', rec.requestId));
      assert.equal(ok.status, 200);
      await ok.text();
    } finally {
      await t.close();
    }
  });

  it('opens a store from a URL, passes its clock on, and closes it in close()', async () => {
    const dir = await makeTempDir();
    try {
      let now = Date.parse('2031-01-01T00:00:00Z');
      const kit = createAskUserKit({
        authorize: allowAnyCaller,
        store: `sqlite://${dir.file('k.db')}`,
        now: () => now,
        ttlMs: 1000,
        logger: memoryAuditLogger(),
        expiryTimers: false,
      });
      const r = await kit.intercept(
        [{ id: 'c', type: 'function', function: { name: 'ask_user', arguments: '{"title":"T","mode":"text"}' } }],
        { sessionId: 's' },
      );
      assert.equal(kit.store.kind, 'sqlite');
      now += 1000;
      assert.equal((await kit.store.get(r.interaction!.requestId))?.status, 'expired', 'the store reads the kit clock');
      await kit.close();
      await assert.rejects(kit.store.get(r.interaction!.requestId), (e: { code?: string }) => e.code === 'store_unavailable');
    } finally {
      await dir.remove();
    }
  });

  it('a run that fails after the claim: error and done(error) on the stream, the cause to onError', async () => {
    const errors: unknown[] = [];
    const failing: RunHost = {
      isResumable: async () => true,
      resume: async () => {
        throw new Error('model endpoint exploded');
      },
      closed: async () => {},
    };
    const { openStore } = plugin;
    const store = await openStore('memory');
    const kit = createAskUserKit({
      store,
      host: failing,
      logger: memoryAuditLogger(),
      onError: (e) => errors.push(e),
      authorize: allowAnyCaller,
    });
    const app = new Koa();
    app.use(koaRoutes(kit));
    const { createServer } = await import('node:http');
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const r = await kit.intercept(
        [{ id: 'c', type: 'function', function: { name: 'ask_user', arguments: '{"title":"T","mode":"text"}' } }],
        { sessionId: 's' },
      );
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/api/chat/continue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(answer('s', r.interaction!.requestId, { selections: [], customInput: 'hi' })),
      });
      assert.equal(res.status, 200);
      const { frames } = await readSse(res);
      assert.deepEqual(
        frames.map((f) => f.event),
        ['interaction_resolved', 'error', 'done'],
      );
      assert.deepEqual(frames[2]!.data, { reason: 'error' });
      assert.equal((frames[1]!.data as { message: string }).message.includes('exploded'), false, 'internal causes stay server-side');
      assert.equal(errors.length, 1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await kit.close();
      await store.close();
    }
  });

  it('the entry exports the documented surface and nothing else', async () => {
    // Values only (types leave no trace at run time); README "Public surface" lists them.
    assert.deepEqual(Object.keys(plugin).sort(), [
      'APPROVAL_CANCEL_ANSWER',
      'APPROVAL_LIMITS',
      'ASK_USER_DESCRIPTIONS',
      'ASK_USER_TOOL_NAME',
      'AUDIT_EVENTS',
      'AskUserError',
      'CANCEL_ANSWER',
      'DEFAULT_HEARTBEAT_MS',
      'DEFAULT_NOTIFY_AFTER_MS',
      'DEFAULT_TTL_MS',
      'DEFAULT_VAPID_SUBJECT',
      'ERROR_CODES',
      'FORM_CANCEL_ANSWER',
      'INTERRUPTED_RESULT',
      'LIMITS',
      'MODES',
      'RESOLVED_STATUSES',
      'SSE_HEADERS',
      'StoreError',
      'StoreUnavailableError',
      'WEBHOOK_EVENT_TYPE',
      'WebPushNotifier',
      'allowAnyCaller',
      'answerToolResultText',
      'askUserArgsSchema',
      'askUserChatTool',
      'askUserFallback',
      'askUserParameters',
      'askUserQuestionSchema',
      'askUserResponsesTool',
      'checkAnswer',
      'checkContinue',
      'checkDecisions',
      'closedToolResultText',
      'consoleAuditLogger',
      'continueBodySchema',
      'createAskUserKit',
      'crossSiteReason',
      'deniedResultText',
      'errorBodySchema',
      'formToolResultContentSchema',
      'formatEvent',
      'interactionResolvedSchema',
      'isAskUserError',
      'memoryAuditLogger',
      'openStore',
      'parseStoreUrl',
      'pendingInteractionSchema',
      'requestIdSchema',
      'sessionIdSchema',
      'strictParameters',
      'toolResultContentSchema',
      'userInputRequiredSchema',
      'webPushNotifier',
      'webhookNotifier',
    ]);
    const loop = await import('../../plugin/loop/index.js');
    assert.deepEqual(Object.keys(loop).sort(), [
      'DEFAULT_MODEL_IDLE_TIMEOUT_MS',
      'ModelCallError',
      'ToolRegistry',
      'agentRuntime',
      'createAgentLoop',
      'describeToolContent',
      'maskedLogger',
      'redactSecrets',
    ]);
  });
});
