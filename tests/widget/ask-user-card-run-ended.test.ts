/**
 * `markRunEnded(reason)`: an answered receipt says "继续执行中…" only while the run it continued goes on;
 * the `done` reason of the continuation stream turns that note into how the run ended. Every other state
 * has no "continuing" to end and stays as it is.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import type { AskUserCard, DoneReason } from '../../widget/ask-user-card.js';
import type { AskUserContinuedEvent } from '../../widget/events.js';
import type { AskUserProvider } from '../../widget/ask-user-provider.js';
import { STRINGS } from '../../widget/strings.js';
import { assert, equal, excludes, includes, until } from './helpers/expect.js';
import { $, cancel, cleanup, has, mount, multiple, pick, settle, single, submit, textOf } from './helpers/card-fixtures.js';
import { frame, streamResponse } from './helpers/sse-fixtures.js';

afterEach(cleanup);

const note = (card: AskUserCard) => textOf(card, '[part~="receipt-note"]');
const live = (card: AskUserCard) => textOf(card, '[role="status"]');

async function answered(locale?: string): Promise<AskUserCard> {
  const { card } = await mount(single(), locale ? { locale } : {});
  await pick(card, locale === 'en' ? '直接实现' : '先分析');
  await submit(card);
  await settle(card);
  return card;
}

async function ended(card: AskUserCard, reason: DoneReason): Promise<void> {
  card.markRunEnded(reason);
  await card.updateComplete;
}

describe('markRunEnded', () => {
  it('turns 继续执行中… into 已继续，任务完成 and announces it; status, answer and time stay', async () => {
    const card = await answered();
    equal(note(card), '继续执行中…', 'note before the run ended');
    const answer = textOf(card, '[part~="receipt-answer"]');
    const time = textOf(card, '[part~="receipt-time"]');
    await ended(card, 'completed');
    equal(note(card), '已继续，任务完成', 'note');
    equal($(card, '[part~="receipt-note"]').dataset.run, 'completed', 'data-run');
    equal(live(card), '已继续，任务完成', 'announced');
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'status');
    equal(textOf(card, '[part~="receipt-answer"]'), answer, 'answer');
    equal(textOf(card, '[part~="receipt-time"]'), time, 'time');
    excludes(card.shadowRoot!.textContent, '继续执行中', 'no "continuing" left anywhere');
  });

  it('says how the run ended for every done reason, in zh-CN and en', async () => {
    const expected: Record<'zh-CN' | 'en', Record<DoneReason, string>> = {
      'zh-CN': {
        completed: '已继续，任务完成',
        paused: '已继续，助手有新的问题',
        cancelled: '已继续，任务已停止',
        error: '已继续，任务出错',
      },
      en: {
        completed: 'Continued; the task is done',
        paused: 'Continued; the assistant has another question',
        cancelled: 'Continued; the task stopped',
        error: 'Continued; the task failed',
      },
    };
    for (const locale of ['zh-CN', 'en'] as const) {
      for (const reason of ['completed', 'paused', 'cancelled', 'error'] as const) {
        const card = await answered(locale);
        equal(note(card), STRINGS[locale].continuing, `${locale}: continuing first`);
        await ended(card, reason);
        equal(note(card), expected[locale][reason], `${locale} ${reason}`);
        card.remove();
      }
    }
  });

  it('an error ending is drawn in the error colour; a completed one is not', async () => {
    const failed = await answered();
    await ended(failed, 'error');
    const done = await answered();
    await ended(done, 'completed');
    const timedOut = (await mount(single({ status: 'expired' }))).card;
    const colour = (card: AskUserCard, part: string) => getComputedStyle($(card, `[part~="${part}"]`)).color;
    const errorColour = colour(timedOut, 'receipt-status');
    equal(colour(failed, 'receipt-note'), errorColour, 'error note in the error colour');
    assert(colour(done, 'receipt-note') !== errorColour, `the completed note is in the error colour ${errorColour}`);
  });

  it('a later call replaces the ending; a string override words it', async () => {
    const { card } = await mount(multiple(), { strings: { runCompleted: 'Fertig' } });
    await pick(card, '跳过');
    await submit(card);
    await settle(card);
    await ended(card, 'paused');
    equal(note(card), '已继续，助手有新的问题', 'paused');
    await ended(card, 'completed');
    equal(note(card), 'Fertig', 'override');
  });

  it('is ignored on an open form, a cancelled, timed-out or not-resumable receipt, and for an unknown reason', async () => {
    const open = (await mount(single())).card;
    await ended(open, 'completed');
    assert(has(open, 'form'), 'the form stays open');
    await pick(open, '先分析');
    await submit(open);
    await settle(open);
    equal(note(open), '继续执行中…', 'an ending before the answer is not remembered');

    const cancelled = (await mount(single())).card;
    await cancel(cancelled);
    await settle(cancelled);
    await ended(cancelled, 'cancelled');
    equal(note(cancelled), STRINGS['zh-CN'].cancelledAction, 'cancelled note unchanged');

    const expired = (await mount(single({ status: 'expired' }))).card;
    await ended(expired, 'completed');
    includes(note(expired), '任务未继续', 'timeout note unchanged');

    const restarted = (await mount(single({ resumable: false }))).card;
    await ended(restarted, 'completed');
    equal(textOf(restarted, '[part~="receipt-status"]'), '服务已重启，请重新发起任务', 'restart notice unchanged');
    assert(!has(restarted, '[part~="receipt-note"]'), 'no note appears');

    const card = await answered();
    await ended(card, 'finished' as DoneReason);
    equal(note(card), '继续执行中…', 'unknown reason ignored');
    await ended(card, 'toString' as DoneReason);
    equal(note(card), '继续执行中…', 'inherited property name ignored');
  });

  it('a new request starts over with 继续执行中…', async () => {
    const card = await answered();
    await ended(card, 'completed');
    card.request = single();
    await card.updateComplete;
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(note(card), '继续执行中…', 'the new answer is continuing');
  });

  it('end to end under a provider: the host reads ask-user-continued to done and passes its reason', async () => {
    const req = single();
    const body = (reason: DoneReason) =>
      streamResponse([
        frame('interaction_resolved', {
          requestId: req.id,
          toolCallId: req.toolCallId,
          status: 'answered',
          at: '2030-01-01T00:00:00.000Z',
          selections: ['safe'],
          customInputLength: 0,
        }),
        frame('tool_result', {
          toolCallId: req.toolCallId,
          name: 'ask_user',
          content: '{"selections":["safe"],"customInput":"","cancelled":false}',
          isError: false,
        }),
        frame('message_delta', { text: '好的。' }),
        frame('done', { reason }),
      ]).response;
    const provider = document.createElement('ask-user-provider') as AskUserProvider;
    provider.fetch = (async () => body('completed')) as typeof fetch;
    document.body.append(provider);
    await provider.updateComplete;
    // What the demo page does: read the stream, then tell the card how it ended.
    provider.addEventListener('ask-user-continued', async (e) => {
      const { detail } = e as AskUserContinuedEvent;
      let reason: DoneReason = 'error';
      for await (const ev of detail.events) if (ev.event === 'done') reason = ev.data.reason;
      (e.target as AskUserCard).markRunEnded(reason);
    });
    const { card } = await mount(req, { onSubmit: undefined }, provider);
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="receipt-note"][data-run]'), 'the ended note');
    equal(note(card), '已继续，任务完成', 'note');
  });

  it('en receipts join the chosen labels with a comma, zh-CN with 、', async () => {
    for (const [locale, joined] of [
      ['en', '先分析, 跳过'],
      ['zh-CN', '先分析、跳过'],
    ] as const) {
      const { card } = await mount(multiple(), { locale });
      await pick(card, '先分析');
      await pick(card, '跳过');
      await submit(card);
      await settle(card);
      includes(textOf(card, '[part~="receipt-answer"]'), joined, locale);
    }
  });
});
