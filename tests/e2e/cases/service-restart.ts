/**
 * docs/protocol.md, Acceptance row 7: service restart, each behaviour named as what it is — never "resume" for a re-run:
 *  - exact resume on a persistent store (SQLite, or the test file's store: helpers/store-variant.ts; persistent
 *    host): kill -9, start again on the same file or database, reload, answer → the model receives the original
 *    history plus the ToolResult, exactly once;
 *  - a run whose state was lost (in-process host on that persistent store: the form survived, the run did not):
 *    the card says 服务已重启，请重新发起任务 and sends nothing;
 *  - a memory store: the form itself is gone; a reload shows no card, and an answer from a page that was
 *    never reloaded is refused (404) with the "no longer exists" receipt. A test file on another store leaves
 *    this one to acceptance.test.ts and the framework files: it is the memory store's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertHistoryExtends, assertToolResultSent, toolMessagesFor } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';
import { storeVariant } from '../helpers/store-variant.js';

/** The persistent store the first two cases restart on: SQLite unless the test file runs on another store. */
const onStore = storeVariant();
const persistent = onStore
  ? { label: onStore.label, place: `${onStore.label} database`, suffix: '' }
  : { label: 'SQLite', place: 'SQLite file', suffix: '-sqlite' };

const pendingBodies = (tap: { on(path: string): Array<{ chunks: Buffer[] }> }) =>
  tap.on('/api/interactions/pending').map((x) => JSON.parse(Buffer.concat(x.chunks).toString('utf8') || 'null'));

test(`service restart — exact resume on a persistent store: kill -9, restart on the same ${persistent.place}, reload, answer; the model gets the original history + ToolResult once`, () =>
  runCase(
    // On another store the evidence folder takes the store's name as its suffix (runCase).
    `restart-exact-resume${persistent.suffix}`,
    { turns: [ask('call_e2e_restart', APPROACH), echo()], hostMode: 'persistent' },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('帮我整理一下这个仓库');
      await chat.openCard();
      const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
      assert.ok(asked, 'no user_input_required in the raw chat SSE');
      await c.evidence.screenshot(chat.page, 'before-kill');

      await c.server.kill9();
      await c.server.restart();
      c.note('restart', { store: c.storeUrl, port: c.server.port, generations: 2 });
      await chat.reload();
      const card = await chat.openCard();
      await c.evidence.screenshot(chat.page, 'after-restart-reload');
      const pending = pendingBodies(tap).at(-1);
      assert.equal(pending?.pending?.id, asked.data.id, 'after the restart GET pending did not return the interaction');
      assert.equal(pending.pending.resumable, true, 'a persistent store with persisted run state must be resumable');

      await option(card, '先分析').check();
      await card.locator('[part~="submit-button"]').click();
      await receipt(card).waitFor();
      await chat.waitForAssistant('模型收到');
      const [cont] = await continueStreams(tap, 1);
      assert.equal(cont!.exchange.status, 200, `continue after restart answered ${cont!.exchange.status}`);
      assert.equal(
        c.model.requests.length,
        2,
        `the model got ${c.model.requests.length} requests across the restart; expected the ask and one resume`,
      );
      const resumed = assertToolResultSent(c.model, 1, 'call_e2e_restart', answerContent(['safe'], ''));
      assertHistoryExtends(c.model.requests[0]!, resumed, 'exact resume');
      assert.equal(
        resumed.messages.length,
        c.model.requests[0]!.messages.length + 2,
        'the resumed request is not the original history + assistant call + ToolResult',
      );
      assert.equal(
        resumed.messages.filter((m) => m.role === 'user').length,
        1,
        'the task was re-run from the user message instead of resumed',
      );

      const audit = auditOf(c.server, asked.data.id);
      assert.deepEqual(
        audit.map((a) => `${a.event}@${a.generation}`),
        ['asked@0', 'answered@1'],
        'audit: asked before the kill, answered by the restarted server',
      );
    },
  ));

test(`service restart — a run whose state was lost (in-process host on ${persistent.label}): the restored card says 服务已重启，请重新发起任务 and no continue leaves the page`, () =>
  runCase(
    'restart-not-resumable-in-process',
    { turns: [ask('call_e2e_lost', APPROACH), { text: '(must not be called)' }], hostMode: 'in-process' },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('帮我整理一下这个仓库');
      await chat.openCard();
      const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
      assert.ok(asked, 'no user_input_required in the raw chat SSE');

      await c.server.kill9();
      await c.server.restart();
      await chat.reload();
      const card = chat.card();
      await receipt(card).waitFor();
      await c.evidence.screenshot(chat.page, 'not-resumable-card');
      const pending = pendingBodies(tap).at(-1);
      c.note('pendingAfterRestart', pending);
      assert.equal(pending?.pending?.id, asked.data.id, `the form did not survive the restart (${persistent.label} store)`);
      assert.equal(pending.pending.resumable, false, 'an in-process run cannot survive a restart; resumable must be false');
      assert.match(await receipt(card).innerText(), /服务已重启，请重新发起任务/, 'the card does not show the restart notice');
      assert.equal(
        await card.locator('[part~="submit-button"], [part~="cancel-button"], [part~="control"], [part~="field"]').count(),
        0,
        'the not-resumable card still offers controls',
      );

      // Everything a user might try on the card: keys on it, and a click on it.
      await card.focus().catch(() => {});
      await chat.page.keyboard.press('Enter');
      await chat.page.keyboard.press('Space');
      await card.click();
      await chat.page.waitForLoadState('networkidle');
      assert.equal(tap.on('/api/chat/continue').length, 0, 'a POST /api/chat/continue left the page (fetch)');
      assert.equal(
        tap.requests.filter((r) => r.path.startsWith('/api/chat/continue')).length,
        0,
        'a request to /api/chat/continue left the page',
      );

      // The server, asked directly, agrees: not resumable, nothing consumed, nothing sent to the model.
      const direct = await fetch(`${c.server.url}/api/chat/continue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          sessionId: asked.data.sessionId,
          requestId: asked.data.id,
          selections: ['safe'],
          customInput: '',
          cancelled: false,
        }),
      });
      const directBody = await direct.text();
      c.note('directContinue', { status: direct.status, body: directBody });
      assert.equal(direct.status, 409, `the server accepted an answer for a lost run: ${direct.status} ${directBody}`);
      assert.equal(JSON.parse(directBody).error.code, 'not_resumable');
      assert.equal(c.model.requests.length, 1, 'the model was called after the restart');
    },
  ));

if (!onStore)
  test('service restart — memory store: the form is gone; a reload shows no card, a stale page’s answer is refused 404 and resumes nothing', () =>
    runCase(
      'restart-memory-store',
      { turns: [ask('call_e2e_mem', APPROACH), { text: '(must not be called)' }], store: 'memory', hostMode: 'persistent' },
      async (c) => {
        const stale = await c.openPage();
        await stale.chat.open();
        await stale.chat.send('帮我整理一下这个仓库');
        const card = await stale.chat.openCard();
        const asked = (await chatStream(stale.tap)).events.find((e) => e.event === 'user_input_required');
        assert.ok(asked, 'no user_input_required in the raw chat SSE');

        await c.server.kill9();
        await c.server.restart();

        // A second tab on the same session, opened after the restart.
        const fresh = await c.openPage();
        await fresh.chat.open(`?session=${encodeURIComponent(asked.data.sessionId)}`);
        assert.deepEqual(pendingBodies(fresh.tap).at(-1), { pending: null }, 'a memory store cannot have kept the interaction');
        assert.equal(
          await fresh.chat.page.locator('ask-user-card').count(),
          0,
          'a card appeared for an interaction the server no longer has',
        );
        await c.evidence.screenshot(fresh.chat.page, 'fresh-tab-no-card');

        await option(card, '先分析').check();
        await card.locator('[part~="submit-button"]').click();
        await receipt(card).waitFor();
        await c.evidence.screenshot(stale.chat.page, 'stale-tab-refused');
        const [cont] = await continueStreams(stale.tap, 1);
        assert.equal(cont!.exchange.status, 404, `a continue for a lost interaction answered ${cont!.exchange.status}`);
        assert.equal(JSON.parse(cont!.raw.toString('utf8')).error.code, 'not_found');
        assert.match(await receipt(card).innerText(), /此问题已不存在/);
        assert.equal(c.model.requests.length, 1, 'the model was called after the restart');
        assert.equal(toolMessagesFor(c.model.requests[0]!, 'call_e2e_mem').length, 0);
      },
    ));
