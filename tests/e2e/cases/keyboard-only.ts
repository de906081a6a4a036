/** Keyboard only: Tab, Space and Enter (and typing) drive the whole exchange; no pointer event ever fires. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt } from '../helpers/demo-page.js';
import { CANCEL_CONTENT, answerContent, assertToolResultSent, shapeOf } from '../helpers/model-evidence.js';
import { APPROACH, ask, type AskArgs } from '../helpers/turns.js';
import { chatStream, continueStreams } from '../helpers/streams.js';

const SUITES: AskArgs = {
  title: '这次要跑哪些测试？',
  mode: 'multiple',
  options: [
    { id: 'unit', label: 'Unit' },
    { id: 'integration', label: 'Integration' },
    { id: 'e2e', label: 'End-to-end' },
  ],
  allowCustom: true,
  submitLabel: '开始测试',
};

/** What has focus, looking through shadow roots: `tag[type] part value`. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el: Element | null = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    if (!el) return '';
    const i = el as HTMLInputElement;
    return [
      el.localName + (i.type ? `[${i.type}]` : ''),
      el.getAttribute('part') ?? el.getAttribute('data-testid') ?? '',
      i.value ?? '',
    ].join(' ');
  });

/** Presses Tab until the focused element description matches; fails naming the path taken. */
async function tabTo(page: Page, wanted: RegExp, max = 25) {
  const path: string[] = [];
  for (let i = 0; i < max; i++) {
    const now = await focused(page);
    if (wanted.test(now)) return;
    path.push(now);
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${wanted}; focus went: ${path.join(' → ')}`);
}

test('keyboard only: Tab/Space/Enter send the message, pick options, type, submit, and cancel the next question; no pointer event fires', () =>
  runCase(
    'keyboard-only',
    { turns: [ask('call_kbd_multi', SUITES), ask('call_kbd_single', APPROACH, '再确认一下'), { text: '(must not be called)' }] },
    async (c) => {
      const { chat, tap, context } = await c.openPage();
      await context.addInitScript(() => {
        const w = window as unknown as { __pointer: string[] };
        w.__pointer = [];
        for (const type of ['pointerdown', 'mousedown', 'touchstart'])
          addEventListener(type, (e) => w.__pointer.push(`${type}:${(e.target as Element)?.localName}`), true);
      });
      await chat.open();
      const page = chat.page;

      await tabTo(page, /message-input/);
      await page.keyboard.type('要跑哪些测试');
      await page.keyboard.press('Enter');
      await chat.openCard();
      await chatStream(tap);
      // The card takes focus when it appears, so the keyboard user lands on the question.
      assert.match(await focused(page), /fieldset/, 'focus did not move to the new card');

      await tabTo(page, /checkbox.* integration$/);
      await page.keyboard.press('Space');
      await tabTo(page, /checkbox.* e2e$/);
      await page.keyboard.press('Space');
      await tabTo(page, /custom-input/);
      await page.keyboard.type('只跑 Chromium');
      await tabTo(page, /submit-button/);
      await page.keyboard.press('Enter');
      const first = chat.page.locator('ask-user-card').nth(0);
      await receipt(first).waitFor();
      await continueStreams(tap, 1);
      assertToolResultSent(c.model, 1, 'call_kbd_multi', answerContent(['integration', 'e2e'], '只跑 Chromium'));

      const second = chat.page.locator('ask-user-card').nth(1);
      await second.locator('[part~="form"]').waitFor();
      await tabTo(page, /cancel-button/);
      await page.keyboard.press('Space');
      await receipt(second).waitFor();
      const [, cancel] = await continueStreams(tap, 2);
      assert.deepEqual(shapeOf(cancel!.events), ['interaction_resolved', 'tool_result', 'done']);
      assert.equal(cancel!.events[1]!.data.content, CANCEL_CONTENT);
      await c.evidence.screenshot(page, 'keyboard-done');

      const pointer = await page.evaluate(() => (window as unknown as { __pointer: string[] }).__pointer);
      assert.deepEqual(pointer, [], 'a pointer event fired during the keyboard-only case');
      assert.match(await receipt(first).innerText(), /Integration、End-to-end[\s\S]*只跑 Chromium/);
      assert.equal(c.model.requests.length, 2, 'the model was called after the keyboard cancel');
    },
  ));
