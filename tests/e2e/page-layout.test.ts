/**
 * The demo page on a phone and for assistive tech, in the real page of the real demo server: at 375×667 and
 * 1280×800, light and dark, the header stays one line per control, nothing overflows its bubble, axe finds
 * nothing on the whole page (not just the card), a redrawn receipt says and looks what the live one did,
 * and the header stops saying "paused" once the question timed out.
 * PAGE_SHOTS=<dir> saves a screenshot of every state for a person to look at.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { closeSuiteBrowser, runCase } from './helpers/acceptance-case.js';
import { option, receipt, type ChatPage } from './helpers/demo-page.js';
import { ask, lastToolContent, type AskArgs } from './helpers/turns.js';
import { axeViolations } from './helpers/axe.js';

after(closeSuiteBrowser);

const SHOTS = process.env.PAGE_SHOTS;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

// What a real model prints: a URL, a path and JSON with no break opportunity for a browser.
const LONG_URL = `https://example.com/${'release-notes-and-migration-guide-'.repeat(4)}index.html?ref=${'a1b2c3d4'.repeat(6)}`;
const LONG_JSON = JSON.stringify({ path: `/workspace/packages/${'deeply-nested-directory/'.repeat(5)}file.ts`, ids: ['x'.repeat(60)] });

const QUESTION: AskArgs = {
  title: '请选择执行方式',
  description: `参考：${LONG_URL}`,
  mode: 'single',
  options: [
    { id: 'safe', label: '先分析', description: '只阅读并给出方案', recommended: true },
    { id: 'implement', label: '直接实现', description: '开始修改工作区' },
  ],
  submitLabel: '继续',
};

const VIEWS = [
  { width: 375, height: 667 },
  { width: 1280, height: 800 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** Layout facts measured in the page: header controls, session id, overflow of the document and of bubbles. */
function measure(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const buttons = [...document.querySelectorAll<HTMLElement>('header button')].map((b) => {
      const r = b.getBoundingClientRect();
      const line = parseFloat(getComputedStyle(b).lineHeight) || parseFloat(getComputedStyle(b).fontSize) * 1.3;
      return {
        text: b.textContent!.trim(),
        height: r.height,
        lines: Math.round(
          (b.clientHeight - parseFloat(getComputedStyle(b).paddingTop) - parseFloat(getComputedStyle(b).paddingBottom)) / line,
        ),
        right: r.right,
      };
    });
    const id = document.querySelector<HTMLElement>('[data-testid="session-id"]')!;
    const msgs = [...document.querySelectorAll<HTMLElement>('.msg')].map((m) => ({
      cls: m.className,
      overflow: m.scrollWidth - m.clientWidth,
      right: m.getBoundingClientRect().right,
    }));
    return {
      vw,
      docOverflow: document.documentElement.scrollWidth - vw,
      header: document.querySelector('header')!.getBoundingClientRect().height,
      buttons,
      sessionIdWidth: id.getBoundingClientRect().width,
      sessionIdFull: id.textContent ?? '',
      sessionIdTitle: id.closest('[title]')?.getAttribute('title') ?? '',
      msgs,
    };
  });
}

/**
 * Problems are collected, not thrown at the first: one run names every defect of every size and scheme.
 */
const problems: string[] = [];
const expect = (ok: boolean, message: string) => void (ok || problems.push(message));
function assertNoProblems(): void {
  const found = problems.splice(0);
  assert.deepEqual(found, [], `${found.length} problem(s):\n${found.join('\n')}`);
}

/** Every check of the page as it stands, at every size and scheme. */
async function checkEverywhere(chat: ChatPage, phase: string): Promise<void> {
  const page = chat.page;
  for (const view of VIEWS) {
    for (const colorScheme of SCHEMES) {
      const where = `${phase} at ${view.width}px ${colorScheme}`;
      await page.setViewportSize(view);
      await page.emulateMedia({ colorScheme });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `${phase}-${view.width}-${colorScheme}.png`), fullPage: true });
      const m = await measure(page);
      for (const b of m.buttons) {
        expect(b.lines === 1, `${where}: header button "${b.text}" wraps onto ${b.lines} lines (${b.height}px tall)`);
        expect(b.height <= 48, `${where}: header button "${b.text}" is ${b.height}px tall`);
        expect(b.right <= m.vw + 0.5, `${where}: header button "${b.text}" ends at ${b.right}px, past the ${m.vw}px viewport`);
      }
      expect(m.header <= 120, `${where}: the header is ${m.header}px tall`);
      expect(m.sessionIdWidth >= 90, `${where}: the session id shows only ${m.sessionIdWidth}px of "${m.sessionIdFull}"`);
      expect(m.sessionIdTitle === m.sessionIdFull, `${where}: the full session id is not available where it is cut`);
      expect(m.docOverflow <= 0, `${where}: the page scrolls sideways by ${m.docOverflow}px`);
      for (const msg of m.msgs) {
        expect(
          msg.overflow <= 1 && msg.right <= m.vw + 0.5,
          `${where}: a ${msg.cls} bubble overflows (${msg.overflow}px, right edge ${msg.right}px)`,
        );
      }
      // Voice control says what it sees: the language button must answer to its visible text.
      const langText = (await page.locator('#lang').innerText()).trim();
      expect(
        (await page.getByRole('button', { name: langText }).count()) === 1,
        `${where}: no button is named after its visible text "${langText}"`,
      );
      for (const v of await axeViolations(page)) expect(false, `${where}: axe: ${v}`);
    }
  }
}

const receiptFacts = (page: Page, selector: string) =>
  page
    .locator(selector)
    .last()
    .evaluate((el) => {
      // A live receipt inside its card, or a redrawn card (the test id is on the element) and its shadow root.
      const root = el.shadowRoot ?? (el.getRootNode() as ShadowRoot | Document);
      const base = root.querySelector<HTMLElement>('[part~="base"]') ?? (el as HTMLElement);
      // No named helper functions here: the test's TypeScript build would wrap them in a helper the page lacks.
      const [status, answer, time, note] = ['receipt-status', 'receipt-answer', 'receipt-time', 'receipt-note'].map((n) =>
        root.querySelector<HTMLElement>(`[part~="${n}"]`),
      );
      const [baseStyle, statusStyle, noteStyle] = [base, status, note].map((e) => {
        if (!e) return null;
        const s = getComputedStyle(e);
        return {
          border: `${s.borderTopStyle} ${s.borderTopWidth}`,
          radius: s.borderTopLeftRadius,
          background: s.backgroundColor,
          color: s.color,
          weight: s.fontWeight,
        };
      });
      return {
        status: status?.textContent?.trim(),
        answer: answer?.textContent?.replace(/\s+/g, ' ').trim(),
        time: time?.textContent?.trim(),
        note: note?.textContent?.trim(),
        base: baseStyle,
        statusStyle,
        noteStyle,
      };
    });

test('page layout: at 375 px and on the desktop, light and dark, the header, bubbles, receipts and the whole page pass; a redrawn receipt matches the live one', () =>
  runCase(
    'page-layout',
    {
      turns: [
        ask('call_layout', QUESTION, `先看看：${LONG_URL}\n${LONG_JSON}`),
        (body) => ({ text: `模型收到：${lastToolContent(body)} ${LONG_JSON}` }),
      ],
    },
    async (c) => {
      problems.length = 0;
      const { chat } = await c.openPage();
      await chat.open();
      await checkEverywhere(chat, 'empty');
      await chat.send(`请看 ${LONG_URL}`);
      const card = await chat.openCard();
      await checkEverywhere(chat, 'open-card');
      // The English header is longer; it must fit the phone as well.
      await chat.page.locator('#lang').click();
      await chat.page.setViewportSize(VIEWS[0]);
      for (const colorScheme of SCHEMES) {
        await chat.page.emulateMedia({ colorScheme });
        if (SHOTS) await chat.page.screenshot({ path: join(SHOTS, `open-card-en-375-${colorScheme}.png`), fullPage: true });
        const m = await measure(chat.page);
        for (const b of m.buttons)
          expect(b.lines === 1, `en at 375px ${colorScheme}: header button "${b.text}" wraps onto ${b.lines} lines`);
        for (const v of await axeViolations(chat.page)) expect(false, `en at 375px ${colorScheme}: axe: ${v}`);
      }
      await chat.page.locator('#lang').click();

      await option(card, '直接实现').check();
      await card.locator('[part~="submit-button"]').click();
      await receipt(card).waitFor();
      await chat.page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
      await card.locator('[part~="receipt-note"][data-run="completed"]').waitFor();
      await chat.page.emulateMedia({ colorScheme: 'light' });
      const live = await receiptFacts(chat.page, 'ask-user-card [part~="receipt"]');
      c.note('liveReceipt', live);
      await checkEverywhere(chat, 'live-receipt');

      await chat.reload();
      await chat.page.locator('[data-testid="historic-receipt"]').first().waitFor();
      await chat.page.emulateMedia({ colorScheme: 'light' });
      const redrawn = await receiptFacts(chat.page, '[data-testid="historic-receipt"]');
      c.note('redrawnReceipt', redrawn);
      const same = (what: string, a: unknown, b: unknown) =>
        expect(JSON.stringify(a) === JSON.stringify(b), `redrawn receipt: ${what} is ${JSON.stringify(a)}, live ${JSON.stringify(b)}`);
      same('status', redrawn.status, live.status);
      same('answer', redrawn.answer, live.answer);
      same('run outcome note', redrawn.note, live.note);
      assert.match(live.time ?? '', /^时间 \d{4}/);
      // Same day and minute as the live one; the server's claim time may be a second apart from the page's.
      same('time (to the minute)', redrawn.time?.slice(0, -3), live.time!.slice(0, -3));
      same('box', redrawn.base, live.base);
      same('status style', redrawn.statusStyle, live.statusStyle);
      same('note style', redrawn.noteStyle, live.noteStyle);
      await checkEverywhere(chat, 'redrawn-receipt');
      assertNoProblems();
    },
  ));

test('page layout: once the question timed out, the header no longer says the run is paused, live or after a reload', () =>
  runCase('page-layout-timeout', { turns: [ask('call_layout_timeout', QUESTION)], ttlMs: 4_000 }, async (c) => {
    const { chat } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();
    const status = chat.page.locator('[data-testid="run-status"]');
    assert.equal((await status.innerText()).trim(), 'paused');
    await card.locator('[part~="receipt"][data-kind="expired"]').waitFor({ timeout: 15_000 });
    await chat.page
      .waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.textContent !== 'paused', null, { timeout: 2_000 })
      .catch(() => {});
    problems.length = 0;
    const said = (await status.innerText()).trim();
    expect(said === 'expired', `after the timeout the header says the run is ${said}`);
    await chat.reload();
    await receipt(chat.card()).waitFor();
    const reloaded = (await status.innerText()).trim();
    expect(reloaded === 'expired', `after a reload the header says the timed-out run is ${reloaded}`);
    assertNoProblems();
  }));
