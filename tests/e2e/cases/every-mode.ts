/** Every mode through the UI, one question after another in one run: what the user enters is what the model receives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertHistoryExtends, assertToolResultSent } from '../helpers/model-evidence.js';
import { ask, echo, type AskArgs } from '../helpers/turns.js';
import { chatStream, continueStreams } from '../helpers/streams.js';

interface Step {
  call: string;
  args: AskArgs;
  fill(card: Locator): Promise<void>;
  selections: string[];
  customInput: string;
  /** Text the receipt must show. */
  shows: RegExp;
}

const STEPS: Step[] = [
  {
    call: 'call_mode_single',
    args: {
      title: '用哪种数据库？',
      mode: 'single',
      options: [
        { id: 'pg', label: 'PostgreSQL' },
        { id: 'sqlite', label: 'SQLite', recommended: true },
      ],
    },
    fill: (card) => option(card, 'PostgreSQL').check(),
    selections: ['pg'],
    customInput: '',
    shows: /PostgreSQL/,
  },
  {
    call: 'call_mode_multiple',
    args: {
      title: '支持哪些平台？',
      mode: 'multiple',
      options: [
        { id: 'linux', label: 'Linux' },
        { id: 'mac', label: 'macOS' },
        { id: 'win', label: 'Windows' },
      ],
    },
    fill: async (card) => {
      await option(card, 'Windows').check();
      await option(card, 'Linux').check();
    },
    selections: ['linux', 'win'],
    customInput: '',
    shows: /Linux、Windows/,
  },
  {
    call: 'call_mode_text',
    args: { title: '给项目起个名字并描述一下', mode: 'text' },
    fill: (card) => card.locator('[part~="field"]').fill('星图\n一个画星座的小工具'),
    selections: [],
    customInput: '星图\n一个画星座的小工具',
    shows: /星图\s+一个画星座的小工具/,
  },
  {
    call: 'call_mode_number',
    args: { title: '需要多少个实例？', mode: 'number' },
    fill: (card) => card.locator('[part~="field"]').fill('-3.5'),
    selections: [],
    customInput: '-3.5',
    shows: /-3\.5/,
  },
  {
    call: 'call_mode_date',
    args: { title: '哪天发布？', mode: 'date' },
    fill: (card) => card.locator('[part~="field"]').fill('2027-02-28'),
    selections: [],
    customInput: '2027-02-28',
    shows: /2027-02-28/,
  },
  {
    call: 'call_mode_directory',
    args: { title: '输出到哪个目录？', mode: 'directory' },
    fill: async (card) => {
      // A path escaping the workspace is refused in the card, before anything is sent.
      await card.locator('[part~="field"]').fill('../etc');
      await card.locator('[part~="submit-button"]').click();
      await card.locator('[part~="error"]').waitFor();
      await card.locator('[part~="field"]').fill('build/reports');
    },
    selections: [],
    customInput: 'build/reports',
    shows: /build\/reports/,
  },
  {
    call: 'call_mode_toggle',
    args: {
      title: '要启用哪些功能？',
      mode: 'toggle',
      options: [
        { id: 'dark-mode', label: '深色模式' },
        { id: 'beta-search', label: '新版搜索', recommended: true },
        { id: 'audit-log', label: '审计日志' },
      ],
    },
    fill: async (card) => {
      await option(card, '审计日志').check();
      await option(card, '深色模式').check();
    },
    selections: ['dark-mode', 'audit-log'],
    customInput: '',
    shows: /深色模式、审计日志/,
  },
];

test('every mode through the UI (single multiple text number date directory toggle): each answer reaches the model verbatim as its ToolResult', () =>
  runCase(
    'every-mode',
    { turns: [...STEPS.map((s) => ask(s.call, s.args, `下一个问题：${s.args.mode}`)), echo('全部收到')] },
    async (c) => {
      const { chat, tap } = await c.openPage();
      await chat.open();
      await chat.send('开始新项目');
      await chatStream(tap);
      const cards = chat.page.locator('ask-user-card');
      for (const [i, step] of STEPS.entries()) {
        const card = cards.nth(i);
        await card.locator('[part~="form"]').waitFor({ state: 'visible' });
        assert.equal(
          await card.locator('[part~="title"]').innerText(),
          step.args.title,
          `card #${i + 1} is not the ${step.args.mode} question`,
        );
        await step.fill(card);
        await card.locator('[part~="submit-button"]').click();
        await receipt(card).waitFor();
        const [cont] = (await continueStreams(tap, i + 1)).slice(-1);
        assert.equal(cont!.exchange.status, 200, `${step.args.mode}: continue answered ${cont!.exchange.status}`);
        assert.deepEqual(
          JSON.parse(cont!.exchange.requestBody!).selections,
          step.selections,
          `${step.args.mode}: the page posted other selections`,
        );
        await c.model.waitForRequests(i + 2);
        const sent = assertToolResultSent(c.model, i + 1, step.call, answerContent(step.selections, step.customInput));
        assertHistoryExtends(c.model.requests[i]!, sent, `${step.args.mode} resume`);
        assert.match(await receipt(card).innerText(), step.shows, `${step.args.mode}: the receipt does not show the answer`);
      }
      await chat.waitForAssistant('全部收到');
      await chat.page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
      // Each continuation but the last ended paused on the next question; the last one completed the run.
      // No receipt may still claim the run is continuing (markRunEnded at each continuation's done).
      const notes = chat.page.locator('ask-user-card [part~="receipt-note"]');
      await notes
        .nth(STEPS.length - 1)
        .filter({ hasText: '已继续，任务完成' })
        .waitFor();
      const said = await notes.allInnerTexts();
      assert.deepEqual(
        said,
        [...Array<string>(STEPS.length - 1).fill('已继续，助手有新的问题'), '已继续，任务完成'],
        'what the receipts say once the run ended',
      );
      await c.evidence.screenshot(chat.page, 'all-modes');
      assert.equal(tap.on('/api/chat/continue').length, STEPS.length, 'the refused directory answer must not have been sent');
      c.note(
        'toolResults',
        STEPS.map((s, i) => c.model.requests[i + 1]!.messages.at(-1)),
      );
    },
  ));
