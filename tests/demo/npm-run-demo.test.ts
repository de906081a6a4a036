/**
 * `npm run demo` as a user runs it: offline (no model configured, so the embedded scripted assistant
 * answers through the real SDK path), on a random port, serving the API and the built page. The page is
 * then driven in Debian's Chromium: ask, answer in the card, see the answer understood, reload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startDemoServer } from '../helpers/demo-server.js';
import { TEST_BROWSER_TOKEN } from '../helpers/browser-identity.js';
import { OWNER_COOKIE } from '../../demo/session-owners.js';
import { answerBody, first, getJson, postStream, shape, text } from './sse-client.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));

test('npm run demo starts offline and the scripted assistant understands the answer', async (t) => {
  const dir = await makeTempDir('ask-user-npm-demo-');
  t.after(() => dir.remove());
  const demo = await startDemoServer({
    via: 'npm',
    env: { OPENAI_BASE_URL: '', OPENAI_MODEL: '', ASK_USER_STORE: `sqlite://${dir.file('demo.db')}`, ASK_USER_TRACE: '1' },
  });
  t.after(() => demo.stop());
  assert.match(demo.output(), /embedded scripted assistant/);
  assert.match(demo.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  await t.test('API: a release question is a date card; the reply quotes the date', async () => {
    const chat = await postStream(`${demo.url}/api/chat`, { sessionId: 's-npm', message: 'Please plan a release' });
    assert.deepEqual(shape(chat), ['message_delta', 'user_input_required', 'done']);
    const ask = first(chat, 'user_input_required');
    assert.equal(ask.mode, 'date');
    const cont = await postStream(`${demo.url}/api/chat/continue`, answerBody('s-npm', ask.id, [], '2031-04-15'));
    assert.equal(cont.status, 200);
    assert.match(text(cont), /2031-04-15/);
    assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
  });

  await t.test('API: a cancelled question ends the run without a model reply', async () => {
    const ask = first(
      await postStream(`${demo.url}/api/chat`, { sessionId: 's-npm-cancel', message: '要启用哪些功能' }),
      'user_input_required',
    );
    assert.equal(ask.mode, 'toggle');
    const cont = await postStream(`${demo.url}/api/chat/continue`, answerBody('s-npm-cancel', ask.id, [], '', true));
    assert.deepEqual(shape(cont), ['interaction_resolved', 'tool_result', 'done']);
    assert.deepEqual(first(cont, 'done'), { reason: 'cancelled' });
  });

  await t.test(
    'page: multiple choice with Other, answered in the card, survives a reload',
    { skip: !CHROMIUM && 'no Chromium' },
    async () => {
      const home = await fetch(`${demo.url}/`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /data-testid="message-input"/);

      const browser = await chromium.launch({
        executablePath: CHROMIUM!,
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
      try {
        // The page is the same browser as this test's own requests (tests/helpers/browser-identity.ts).
        const context = await browser.newContext();
        await context.addCookies([{ name: OWNER_COOKIE, value: TEST_BROWSER_TOKEN, url: demo.url }]);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${demo.url}/?session=s-npm-page`);
        await page.waitForSelector('body[data-ready="true"]');
        await page.fill('[data-testid="message-input"]', 'Which tests should run?');
        await page.click('[data-testid="send-button"]');

        const card = page.locator('ask-user-card').last();
        await card.locator('[part~="form"]').waitFor();
        await card.locator('[part~="option"]', { hasText: 'Integration' }).locator('[part~="control"]').check();
        await card.locator('[part~="option"]', { hasText: 'Browser' }).locator('[part~="control"]').check();
        await card.locator('[part~="custom-input"]').fill('skip the slow ones');
        await card.locator('[part~="submit-button"]').click();

        const reply = page.locator('[data-testid="assistant-text"]', { hasText: 'skip the slow ones' });
        await reply.waitFor();
        const said = (await reply.textContent()) ?? '';
        assert.match(said, /Integration/);
        assert.match(said, /\(integration\)/);
        assert.match(said, /Browser/);
        await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
        await card.locator('[part~="receipt"]').waitFor();

        // The server's history, as the model got it.
        const session = await getJson(`${demo.url}/api/session?sessionId=s-npm-page`);
        const tool = session.body.items.find((i: any) => i.role === 'tool' && i.text.startsWith('{"selections"'));
        assert.equal(tool.text, '{"selections":["integration","browser"],"customInput":"skip the slow ones","cancelled":false}');

        await page.reload();
        await page.waitForSelector('body[data-ready="true"]');
        const receipt = page.locator('[data-testid="historic-receipt"]').last();
        await receipt.waitFor();
        // The card's own words: in zh-CN (the page's default) the labels are joined with 、, as on the live card.
        assert.match((await receipt.locator('[part~="receipt"]').textContent()) ?? '', /Integration、Browser/);
        assert.equal(
          await page.locator('ask-user-card:not([data-testid="historic-receipt"])').count(),
          0,
          'nothing is pending after the answer',
        );

        await page.click('[data-testid="trace-toggle"]');
        await page.locator('[data-testid="trace-lines"]', { hasText: 'event: tool_result' }).waitFor();
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    },
  );
});
