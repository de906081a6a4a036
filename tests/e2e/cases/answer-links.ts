/**
 * Contract §13, answer links, through the demo (`ASK_USER_ANSWER_LINKS=1`) in Chromium: the owner's
 * "answer elsewhere" shows the link and a QR code of it; a second browser context, without the owner's
 * cookie, opens the link and answers the card once, and the owner's page sees the run go on; a used, a
 * guessed and another card's token are refused, on the page and on continue; the link's page holds that
 * card alone (a canary in the session's earlier messages and answers never appears); no token reaches the
 * demo's output, its audit lines or its trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { APIRequestContext, Page, Request } from 'playwright-core';
import { decodeQR } from 'qr/decode.js';
import { runCase, suiteBrowser } from '../helpers/acceptance-case.js';
import { option, receipt, SEL } from '../helpers/demo-page.js';
import { chatStream, waitForAudit } from '../helpers/streams.js';
import { axeViolations } from '../helpers/axe.js';
import { ANSWER_LINK, CARD_TITLE, logsOf, notifyDemo, tokenOf } from '../helpers/notify-demo.js';
import { postStream } from '../../demo/sse-client.js';
import { TEST_BROWSER_TOKEN } from '../../helpers/browser-identity.js';

/** The QR code the page drew, read back: the SVG rendered to pixels in the page, decoded here. */
async function readQr(page: Page): Promise<string> {
  const size = 270;
  const pixels = await page.locator('[data-testid="answer-qr"] svg').evaluate(async (svg, px) => {
    const image = new Image();
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = px;
    const g = canvas.getContext('2d')!;
    g.drawImage(image, 0, 0, px, px);
    return Array.from(g.getImageData(0, 0, px, px).data);
  }, size);
  return decodeQR({ width: size, height: size, data: Uint8Array.from(pixels) });
}

/** Every text of a page, its shadow roots' included (the card draws into one). */
const allText = (page: Page) =>
  page.evaluate(() => {
    const texts: string[] = [document.documentElement.outerHTML];
    for (const el of document.querySelectorAll('*')) if (el.shadowRoot) texts.push(el.shadowRoot.innerHTML);
    return texts.join('\n');
  });

/** `POST /api/chat/continue` as the link's browser sends it: JSON, the token in the body, no cookie. */
const continueWith = (api: APIRequestContext, url: string, body: Record<string, unknown>) =>
  api.post(`${url}/api/chat/continue`, { data: body, headers: { 'content-type': 'application/json' } });

test('answer links — a second browser without the owner’s cookie answers once through the link, the owner sees the run go on; reuse, guesses and another card’s token are refused; the link page holds that card alone; no token in any log', async () => {
  const { shared, webhook } = await notifyDemo();
  const firstLine = shared.server.output.length;
  await runCase('answer-link', { shared }, async (c) => {
    const canary = `canary-${randomBytes(6).toString('hex')}`;
    const canaryAnswer = `canary-answer-${randomBytes(6).toString('hex')}`;
    const tokens: string[] = [];

    // The owner's session: a first card answered with a canary, then a second left open.
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send(`给项目起个名字，代号 ${canary}`);
    const first = await chat.openCard();
    await first.locator('[part~="field"]').fill(canaryAnswer);
    await first.locator('[part~="submit-button"]').click();
    await receipt(first).waitFor();
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();
    await chat.send('你好，帮我看看这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap, 2)).events.find((e) => e.event === 'user_input_required')!.data;
    const sessionId = asked.sessionId as string;

    // "Answer elsewhere": the link, and a QR code that reads back as the same link.
    const li = chat.page.locator(`li:has(> ask-user-card[data-request-id="${asked.id}"])`);
    await li.locator('[data-testid="answer-elsewhere-button"]').click();
    const linkEl = li.locator('[data-testid="answer-link"]');
    await linkEl.waitFor();
    const link = (await linkEl.innerText()).trim();
    tokens.push(tokenOf(link));
    assert.match(link, ANSWER_LINK);
    assert.equal(await linkEl.getAttribute('href'), link);
    const made = await tap.waitFor('/api/answer-link', (x) => x.end !== undefined);
    assert.deepEqual(JSON.parse(made.requestBody!), { sessionId, requestId: asked.id });
    assert.deepEqual(JSON.parse(tap.body(made).toString()), { requestId: asked.id, url: link });
    assert.equal(await readQr(chat.page), link, 'the QR code holds the link');
    assert.deepEqual(await axeViolations(chat.page), [], 'axe on the page with the open card and its link');
    await c.evidence.screenshot(chat.page, 'answer-elsewhere');
    // On a phone the long link breaks and the QR code fits: nothing scrolls sideways.
    await chat.page.setViewportSize({ width: 375, height: 667 });
    const overflow = await li.evaluate((el) => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      item: el.scrollWidth - el.clientWidth,
    }));
    assert.deepEqual(overflow, { page: 0, item: 0 }, 'the link panel overflows at 375 px');
    await li.locator('[data-testid="answer-elsewhere-panel"]').screenshot({ path: `${c.evidence.dir}/answer-elsewhere-panel-375.png` });
    await chat.page.setViewportSize({ width: 900, height: 900 });

    // Left open, the card is notified too, with a link of its own (each link is new).
    const notified = webhook.verify((await webhook.waitFor(asked.id))[0]!).data.answerUrl as string;
    tokens.push(tokenOf(notified));
    assert.match(notified, ANSWER_LINK);
    assert.notEqual(notified, link);

    // A second browser: no cookie of the owner's, nothing but the link.
    const browser = await suiteBrowser();
    const other = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' });
    c.contexts.push(other);
    const seen: Array<{ method: string; path: string; cookie: string | undefined; body: string | null }> = [];
    other.on('request', (r: Request) => {
      const url = new URL(r.url());
      void r.allHeaders().then((h) => seen.push({ method: r.method(), path: url.pathname, cookie: h.cookie, body: r.postData() }));
    });
    const phone = await other.newPage();
    const opened = await phone.goto(link);
    assert.equal(opened!.status(), 200);
    const headers = opened!.headers();
    c.note('linkPageHeaders', headers);
    assert.equal(headers['cache-control'], 'no-store');
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.equal(headers['x-robots-tag'], 'noindex');
    assert.match(headers['content-security-policy'] ?? '', /default-src 'none'/);
    const html = await opened!.text();
    await phone.locator('ask-user-card [part~="form"]').waitFor();
    assert.equal((await phone.locator(CARD_TITLE).first().innerText()).trim(), asked.title);
    const embedded = JSON.parse((await phone.locator('#ask-user-answer').textContent()) ?? '{}') as { request: unknown };
    assert.deepEqual(embedded.request, asked, 'the page holds the card’s user_input_required data, and that alone');
    const shown = `${html}\n${await allText(phone)}`;
    for (const secret of [canary, canaryAnswer, TEST_BROWSER_TOKEN, '给项目起个名字'])
      assert.ok(!shown.includes(secret), `the link's page shows "${secret}" of the session`);
    assert.deepEqual(
      [...new Set(seen.filter((r) => r.path !== '/favicon.ico').map((r) => r.path.replace(/^\/widget\/.*$/, '/widget/…')))].sort(),
      [new URL(link).pathname, '/widget/…'].sort(),
      'the link page loads only itself and the widget',
    );
    assert.deepEqual(await axeViolations(phone, 'ask-user-card'), [], 'axe on the link page’s card');
    // The whole page, for the evidence: the kit's page has no <h1> of its own (axe's page-has-heading-one).
    c.note('axeOnWholeLinkPage', await axeViolations(phone));
    await c.evidence.screenshot(phone, 'link-page');

    // The answer, from the second browser: continue with the token and without a cookie.
    await option(phone.locator('ask-user-card'), '直接实现').check();
    await phone.locator('ask-user-card [part~="submit-button"]').click();
    await receipt(phone.locator('ask-user-card')).waitFor();
    const posted = seen.filter((r) => r.path === '/api/chat/continue');
    c.note('linkContinue', posted);
    assert.equal(posted.length, 1);
    assert.equal(posted[0]!.cookie, undefined, 'the link page sent a cookie');
    assert.deepEqual(JSON.parse(posted[0]!.body!), {
      sessionId,
      requestId: asked.id,
      cancelled: false,
      answerToken: tokenOf(link),
      selections: ['implement'],
      customInput: '',
    });
    await waitForAudit(c.server, asked.id, 'answered');
    await c.evidence.screenshot(phone, 'link-page-answered');

    // The owner's page sees the run go on: the card's receipt, the model's reply, the run completed.
    // (It looks every few seconds while a card waits; the run, done by then, is redrawn from the history.)
    await chat.page.locator(SEL.assistant, { hasText: '直接实现' }).waitFor({ timeout: 15_000 });
    await chat.page.locator('ask-user-card [part~="form"]').waitFor({ state: 'detached', timeout: 15_000 });
    assert.match(await chat.page.locator(SEL.runStatus).innerText(), /^(idle|completed)$/);
    assert.equal(await chat.page.locator('[data-testid="answer-elsewhere"]').count(), 0, 'the closed card still offers a link');
    assert.deepEqual(
      c.requests
        .at(-1)!
        .messages.filter((m) => m.role === 'tool' && m.tool_call_id === asked.toolCallId)
        .map((m) => m.content),
      [JSON.stringify({ selections: ['implement'], customInput: '', cancelled: false })],
      'the model got the link’s answer as the ToolResult',
    );
    await c.evidence.screenshot(chat.page, 'owner-after-link-answer');

    // Once: the page is gone (404) and continue refuses the token (403 on answerToken).
    const reopened = await phone.goto(link);
    assert.equal(reopened!.status(), 404, 'a used link opens nothing');
    const body = { sessionId, requestId: asked.id, selections: ['safe'], customInput: '', cancelled: false };
    const reuse = await continueWith(other.request, c.server.url, { ...body, answerToken: tokenOf(link) });
    assert.equal(reuse.status(), 403);
    assert.deepEqual((await reuse.json()).error.field, 'answerToken');
    // The link the card's notification carried, never used: the card closed, so 410 saying why.
    assert.equal((await phone.goto(notified))!.status(), 410);
    assert.match(await phone.locator('body').innerText(), /已经回答/);

    // Two open cards, each with its link: one in this session, one in another session of the owner.
    const third = await postStream(`${c.server.url}/api/chat`, { sessionId, message: '再帮我看看测试' });
    const third2 = await postStream(`${c.server.url}/api/chat`, { sessionId: `s-${randomBytes(8).toString('hex')}`, message: '你好' });
    const cards = [third, third2].map((r) => r.events.find((e) => e.event === 'user_input_required')!.data);
    const links: string[] = [];
    for (const open of cards) {
      const res = await fetch(`${c.server.url}/api/answer-link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: open.sessionId, requestId: open.id }),
      });
      assert.equal(res.status, 200);
      links.push(((await res.json()) as { url: string }).url);
    }
    tokens.push(...links.map(tokenOf));
    const [a, b] = cards as [any, any];
    const answerOf = (open: any) => ({
      sessionId: open.sessionId,
      requestId: open.id,
      selections: open.mode === 'multiple' ? [open.options[0].id] : ['safe'],
      customInput: '',
      cancelled: false,
    });
    // Another card's token, either way round, and a guessed one: 403 on answerToken, the same words whatever was wrong.
    const guess = randomBytes(32).toString('base64url');
    tokens.push(guess);
    const refusals = [
      await continueWith(other.request, c.server.url, { ...answerOf(a), answerToken: tokenOf(links[1]!) }),
      await continueWith(other.request, c.server.url, { ...answerOf(b), answerToken: tokenOf(links[0]!) }),
      await continueWith(other.request, c.server.url, { ...answerOf(a), answerToken: guess }),
    ];
    const refused = await Promise.all(refusals.map(async (r) => ({ status: r.status(), body: await r.json() })));
    c.note('refused', refused);
    for (const r of refused) assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [403, 'forbidden', 'answerToken']);
    assert.equal(new Set(refused.map((r) => r.body.error.message)).size, 1, 'the refusals say different things');
    assert.equal((await phone.goto(`${c.server.url}/answer/${guess}`))!.status(), 404, 'a guessed link opens nothing');
    const malformed = await continueWith(other.request, c.server.url, { ...answerOf(a), answerToken: 'not-a-token' });
    assert.equal(malformed.status(), 400);
    // Without a token the second browser is a stranger.
    const stranger = await continueWith(other.request, c.server.url, answerOf(a));
    assert.equal(stranger.status(), 403);
    // Both cards still wait, and each answers with its own token.
    for (const [i, open] of cards.entries()) {
      const pending = (await (await fetch(`${c.server.url}/api/interactions/pending?sessionId=${open.sessionId}`)).json()) as any;
      assert.equal(pending.pending?.id, open.id, 'a refused token closed the card');
      const ok = await continueWith(other.request, c.server.url, { ...answerOf(open), answerToken: tokenOf(links[i]!) });
      assert.equal(ok.status(), 200, `card ${i + 1} answered with its own link`);
      await ok.body();
    }

    // No token anywhere the demo writes: stdout and stderr (audit lines among them) and the trace.
    const logs = await logsOf(shared, firstLine, [sessionId, b.sessionId]);
    await c.evidence.write('tokens-checked.json', { count: tokens.length });
    for (const token of tokens) assert.ok(!logs.includes(token), 'an answer link’s token is in the demo’s output, audit or trace');
    assert.ok(logs.includes(asked.id), 'the logs checked hold the card (they are the right ones)');
  });
});
