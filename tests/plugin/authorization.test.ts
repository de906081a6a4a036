/**
 * Secure by default: the kit serves no route without an authorization policy, the opt-out says what it
 * does and is logged once, and a browser request from another site cannot answer a question.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { ParameterizedContext } from 'koa';
import type { Request as ExpressRequest } from 'express';
import { createAskUserKit, allowAnyCaller, memoryAuditLogger } from '../../plugin/index.js';
import { koaChat, koaRoutes } from '../../plugin/adapters/koa.js';
import { expressRoutes } from '../../plugin/adapters/express.js';
import { answer, readSse, startApp } from './harness.js';

function captureWarnings(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const saved = console.warn;
  console.warn = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
  return { lines, restore: () => void (console.warn = saved) };
}

describe('an authorization policy is required', () => {
  it('a kit without authorize is a type error, and throws at creation saying what to pass', () => {
    assert.throws(
      // @ts-expect-error -- `authorize` is required: without it every entry would be open to anyone.
      () => createAskUserKit({ logger: memoryAuditLogger() }),
      (err: Error) => err instanceof TypeError && /authorize/.test(err.message) && /allowAnyCaller/.test(err.message),
    );
  });

  it("authorize's first argument is the adapter's request type: a kit typed for one adapter does not fit another", async () => {
    const forKoa = createAskUserKit({
      logger: memoryAuditLogger(),
      authorize: (ctx: ParameterizedContext, id) => ctx.get('x-user') === id,
    });
    const forExpress = createAskUserKit({ logger: memoryAuditLogger(), authorize: (req: ExpressRequest, id) => req.get('x-user') === id });
    try {
      assert.equal(typeof koaRoutes(forKoa), 'function');
      assert.equal(typeof expressRoutes(forExpress), 'function');
      // @ts-expect-error -- an Express policy would be handed Koa's context.
      assert.equal(typeof koaRoutes(forExpress), 'function');
      // Without a runtime there is no chat to serve: said at once, not on the first request.
      assert.throws(
        () => koaChat(forKoa),
        (err: Error) => err instanceof TypeError && /runtime/.test(err.message),
      );
    } finally {
      await forKoa.close();
      await forExpress.close();
    }
  });

  it('allowAnyCaller is logged once when the kit first serves (routes or chat), and a real policy is not logged', async () => {
    const warnings = captureWarnings();
    try {
      const open = createAskUserKit({ logger: memoryAuditLogger(), authorize: allowAnyCaller });
      open.serveRoutes();
      open.serveRoutes();
      await open.admitChat({ caller: undefined, sessionId: 's', message: 'hi' });
      const bound = createAskUserKit({ logger: memoryAuditLogger(), authorize: () => false });
      bound.serveRoutes();
      await open.close();
      await bound.close();
    } finally {
      warnings.restore();
    }
    assert.equal(warnings.lines.length, 1);
    assert.match(warnings.lines[0]!, /allowAnyCaller.*every caller may read and answer every session/);
  });

  it('a refused caller gets 403 forbidden on pending and continue, learns nothing, and the question stays pending', async () => {
    const t = await startApp({ authorize: (ctx, sessionId) => ctx.get('x-user') === `owner-of-${sessionId}` });
    try {
      const q = await t.ask('victim');
      const stranger = { 'content-type': 'application/json', 'x-user': 'mallory' };
      const pending = await fetch(t.pendingUrl('victim'), { headers: { 'x-user': 'mallory' } });
      const pendingText = await pending.text();
      const cont = await t.post(answer('victim', q.requestId, { selections: ['safe'] }), { headers: stranger });
      const contText = await cont.text();
      assert.equal(pending.status, 403);
      assert.equal(cont.status, 403);
      for (const text of [pendingText, contText]) {
        assert.equal(JSON.parse(text).error.code, 'forbidden');
        for (const secret of [q.requestId, q.toolCallId, 'Pick a strategy', 'Analyse first', 'safe'])
          assert.ok(!text.includes(secret), `no ${secret} in ${text}`);
      }
      const rejected = t.audit.entries.filter((e) => e.event === 'rejected');
      assert.deepEqual(
        rejected.map((e) => e.reason),
        ['forbidden', 'forbidden'],
      );
      for (const e of rejected) assert.equal(e.mode, undefined, 'the audit line holds nothing of the stored question');
      // The owner still answers it.
      const own = await t.post(answer('victim', q.requestId, { selections: ['safe'] }), {
        headers: { 'content-type': 'application/json', 'x-user': 'owner-of-victim' },
      });
      assert.equal(own.status, 200);
      await readSse(own);
    } finally {
      await t.close();
    }
  });
});

/** POST with exactly these headers: fetch drops `Origin`, which only a browser may set. */
function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('cross-site requests', () => {
  const cases: Array<[string, Record<string, string>, number]> = [
    ['a foreign Origin', { origin: 'http://evil.example' }, 403],
    ['Origin null (a sandboxed frame, a file)', { origin: 'null' }, 403],
    ['Sec-Fetch-Site cross-site without Origin', { 'sec-fetch-site': 'cross-site' }, 403],
    ['Sec-Fetch-Site same-site without Origin', { 'sec-fetch-site': 'same-site' }, 403],
    ['an allowed front-end Origin', { origin: 'https://app.example.com', 'sec-fetch-site': 'cross-site' }, 200],
    ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, 200],
    ['no browser headers (a server, curl)', {}, 200],
  ];
  for (const [label, headers, status] of cases) {
    it(`${label}: ${status}`, async () => {
      const t = await startApp({ allowedOrigins: ['https://app.example.com'] });
      try {
        const q = await t.ask('s');
        const res = await rawPost(t.continueUrl, answer('s', q.requestId, { selections: ['safe'] }), headers);
        assert.equal(res.status, status);
        if (status === 403) {
          assert.equal((JSON.parse(res.text) as { error: { code: string } }).error.code, 'forbidden');
          assert.equal((await t.store.get(q.requestId))?.status, 'pending', 'nothing consumed');
        } else assert.match(res.text, /event: interaction_resolved/);
      } finally {
        await t.close();
      }
    });
  }

  it("the server's own origin passes", async () => {
    const t = await startApp();
    try {
      const q = await t.ask('s');
      const res = await rawPost(t.continueUrl, answer('s', q.requestId, { selections: ['safe'] }), { origin: t.url });
      assert.equal(res.status, 200);
      assert.match(res.text, /event: interaction_resolved/);
    } finally {
      await t.close();
    }
  });
});
