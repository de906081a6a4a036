/**
 * The card's life: pending → submitting → read-only receipt; cancel; expiry (given, and counted down);
 * a run that cannot resume; every refusal of docs/protocol.md §4 in words; and the host's own submission
 * through `ask-user-submit`, `markSubmitted`, `showError`, `markResolved`.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { AskUserErrorEvent, AskUserExpiredEvent, AskUserSubmitEvent } from '../../widget/events.js';
import type { AskUserCard } from '../../widget/ask-user-card.js';
import { assert, deepEqual, equal, excludes, includes, until } from './helpers/expect.js';
import {
  $,
  $$,
  cancel,
  cleanup,
  deepActiveElement,
  has,
  mount,
  multiple,
  pick,
  settle,
  single,
  submit,
  text,
  textOf,
  type,
} from './helpers/card-fixtures.js';

afterEach(cleanup);

const live = (card: AskUserCard) => textOf(card, '[role="status"]');

/** An `onSubmit` whose promise the test settles. */
function deferred() {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const calls: unknown[][] = [];
  const fn = (...args: unknown[]) => {
    calls.push(args);
    return new Promise((res, rej) => ((resolve = res), (reject = rej)));
  };
  return { fn, calls, resolve: (v?: unknown) => resolve(v), reject: (e: unknown) => reject(e) };
}

describe('submitting and the receipt', () => {
  it('stays "submitting" while onSubmit runs, ignores a second click, then shows what was chosen, when, and 继续执行中…', async () => {
    const d = deferred();
    const { card } = await mount(multiple({ allowCustom: true }), { onSubmit: d.fn });
    await pick(card, '先分析');
    await pick(card, '跳过');
    await type(card, '#other', '注意 <b>备份</b>');
    await submit(card);
    equal(textOf(card, '[part~="submit-button"]'), '正在提交…', 'button while submitting');
    equal($(card, 'form').getAttribute('aria-busy'), 'true', 'aria-busy');
    equal(live(card), '正在提交…', 'live region');
    await submit(card);
    equal(d.calls.length, 1, 'second click sent nothing');
    deepEqual(d.calls[0], [['safe', 'skip'], '注意 <b>备份</b>', false], 'onSubmit arguments');

    d.resolve();
    await settle(card);
    assert(!has(card, 'form'), 'form gone');
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'status');
    equal(textOf(card, '[part~="receipt-question"]'), '请选择执行方式', 'question kept');
    includes(textOf(card, '[part~="receipt-answer"]'), '先分析、跳过', 'labels, not ids');
    includes(textOf(card, '[part~="receipt-answer"]'), '注意 <b>备份</b>', 'typed text as text');
    const time = $(card, '[part~="receipt-time"] time');
    assert(!Number.isNaN(Date.parse(time.getAttribute('datetime')!)), 'machine-readable time');
    equal(textOf(card, '[part~="receipt-note"]'), '继续执行中…', 'note');
    includes(live(card), '继续执行中…', 'announced');
    equal(deepActiveElement(), $(card, '[part~="receipt"]'), 'focus moved to the receipt');
    equal($$(card, 'input, textarea, button').length, 0, 'read-only');
  });

  it('a text answer shows the typed text in the receipt', async () => {
    const { card } = await mount(text());
    await type(card, '#field', '用 pnpm');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="receipt-answer"]'), '用 pnpm', 'typed');
  });
});

describe('cancel', () => {
  it('sends cancelled: true with nothing else, and shows the cancelled receipt', async () => {
    const { card, calls } = await mount(single({ allowCustom: true }));
    await pick(card, '先分析');
    await type(card, '#other', 'x');
    await cancel(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }]);
    equal(textOf(card, '[part~="receipt-status"]'), '已取消', 'status');
    equal(textOf(card, '[part~="receipt-note"]'), '任务已停止，不会再次追问。', 'what it means');
    assert(!has(card, '[part~="receipt-answer"]'), 'no answer listed');
  });

  it('cancel is possible even when the answer is invalid', async () => {
    const { card, calls } = await mount(single());
    await cancel(card);
    equal(calls.length, 1, 'sent');
  });
});

describe('expiry', () => {
  it('status "expired" shows the timeout receipt directly and nothing can be sent', async () => {
    const { card, calls } = await mount(single({ status: 'expired' }));
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
    includes(textOf(card, '[part~="receipt-note"]'), '任务未继续', 'note');
    equal($$(card, 'button, input').length, 0, 'no controls');
    equal(calls.length, 0, 'nothing sent');
  });

  it('a GET pending object with status "expired" and resumable: false is a timeout receipt, not the restart notice', async () => {
    // What the server returns for an expired card (docs/protocol.md §5): the run is over, so resumable is false.
    // The status is what happened; resumable only says whether the run could go on.
    for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), new Date(Date.now() + 60_000).toISOString()]) {
      const { card, calls } = await mount(single({ status: 'expired', resumable: false, expiresAt }));
      equal(textOf(card, '[part~="receipt-status"]'), '已超时', `status (expiresAt ${expiresAt})`);
      equal($(card, '[part~="receipt"]').dataset.kind, 'expired', 'receipt kind');
      includes(textOf(card, '[part~="receipt-note"]'), '任务未继续', 'timeout note');
      excludes(card.shadowRoot!.textContent, '服务已重启', 'no restart notice');
      equal($$(card, 'button, input, textarea').length, 0, 'no controls');
      equal(calls.length, 0, 'nothing sent');
    }
  });

  it('an expiresAt already past shows the timeout receipt', async () => {
    const { card } = await mount(single({ expiresAt: new Date(Date.now() - 1000).toISOString() }));
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
  });

  it('counts down and turns into the timeout receipt when expiresAt passes, firing ask-user-expired', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const events: AskUserExpiredEvent[] = [];
    document.addEventListener('ask-user-expired', (e) => events.push(e), { once: true });
    const { card, calls } = await mount(single({ expiresAt }));
    const countdown = textOf(card, '[part~="expiry"]');
    assert(/^剩余时间 0:0[12]$/.test(countdown), `countdown shows seconds left: ${countdown}`);
    assert($(card, '[part~="expiry"]').classList.contains('soon'), 'last minute stands out');
    await until(() => has(card, '[part~="receipt"]'), 'the timeout receipt');
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
    equal(textOf(card, '[part~="receipt-question"]'), '请选择执行方式', 'the card stays, with its question');
    includes(live(card), '已超时', 'announced');
    equal(events.length, 1, 'ask-user-expired fired');
    equal(events[0]!.detail.requestId, card.request!.id, 'event names the request');
    equal(calls.length, 0, 'nothing sent');
  });

  it('shows h:mm:ss for long deadlines', async () => {
    const { card } = await mount(single({ expiresAt: new Date(Date.now() + 2 * 3600_000 + 5000).toISOString() }));
    assert(/^剩余时间 2:00:0\d$/.test(textOf(card, '[part~="expiry"]')), textOf(card, '[part~="expiry"]'));
  });
});

describe('resumable: false', () => {
  it('says the service restarted, offers no submit and sends nothing', async () => {
    let submitted = 0;
    document.addEventListener('ask-user-submit', () => submitted++);
    const { card, calls } = await mount(single({ resumable: false }));
    equal(textOf(card, '[part~="receipt-status"]'), '服务已重启，请重新发起任务', 'notice');
    equal($$(card, 'button, input, textarea').length, 0, 'no controls');
    card.markSubmitted();
    await card.updateComplete;
    equal(calls.length + submitted, 0, 'nothing sent');
    equal(textOf(card, '[part~="receipt-status"]'), '服务已重启，请重新发起任务', 'a late markSubmitted does not claim the run continues');
  });
});

describe('server refusals (onSubmit resolving to the client result)', () => {
  const failing = (status: number, error: Record<string, unknown>) => () => Promise.resolve({ ok: false, status, error });

  it('409 already_answered shows the receipt the server carries', async () => {
    const at = '2030-01-01T00:01:00.000Z';
    const { card } = await mount(single(), {
      onSubmit: failing(409, {
        code: 'already_answered',
        message: 'taken',
        receipt: { requestId: 'x', toolCallId: 'y', status: 'answered', at },
      }),
    });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '此问题已经回答过（可能在其他窗口）', 'status');
    equal($(card, 'time').getAttribute('datetime'), at, 'time of the first answer');
    assert(!has(card, '[part~="receipt-answer"]'), 'does not claim our answer won');
  });

  it('409 already_answered of a cancel shows the cancelled receipt', async () => {
    const { card } = await mount(single(), {
      onSubmit: failing(409, {
        code: 'already_answered',
        message: 'x',
        receipt: { requestId: 'x', toolCallId: 'y', status: 'cancelled', at: '2030-01-01T00:00:00Z' },
      }),
    });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '已取消', 'status');
  });

  it('410 expired shows the timeout receipt', async () => {
    const { card } = await mount(single(), { onSubmit: failing(410, { code: 'expired', message: 'past expiresAt' }) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
  });

  it('409 not_resumable shows the restart notice', async () => {
    const { card } = await mount(single(), { onSubmit: failing(409, { code: 'not_resumable', message: 'lost' }) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '服务已重启，请重新发起任务', 'status');
  });

  it('404 not_found says the question is gone', async () => {
    const { card } = await mount(single(), { onSubmit: failing(404, { code: 'not_found', message: 'unknown' }) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '此问题已不存在', 'status');
  });

  it('503 store_unavailable says so, keeps the answer, and retry sends the same answer again', async () => {
    let n = 0;
    const seen: unknown[][] = [];
    const errors: AskUserErrorEvent[] = [];
    document.addEventListener('ask-user-error', (e) => errors.push(e), { once: true });
    const { card } = await mount(single(), {
      onSubmit: (...args) => {
        seen.push(args);
        return Promise.resolve(
          n++ === 0 ? { ok: false, status: 503, error: { code: 'store_unavailable', message: 'redis down' } } : undefined,
        );
      },
    });
    await pick(card, '直接实现');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="server-error"]'), '服务暂时不可用', 'message');
    includes(textOf(card, '[part~="server-error"]'), 'redis down', 'server detail as text');
    equal(deepActiveElement(), $(card, '[part~="retry-button"]'), 'focus on retry');
    equal(errors.length, 1, 'ask-user-error fired');
    equal(errors[0]!.detail.outcome.kind, 'error', 'outcome');
    equal($<HTMLInputElement>(card, '#option-1').checked, true, 'choice kept');
    $<HTMLButtonElement>(card, '[part~="retry-button"]').click();
    await settle(card);
    deepEqual(
      seen,
      [
        [['implement'], '', false],
        [['implement'], '', false],
      ],
      'same answer twice',
    );
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'then accepted');
  });

  it('422 invalid_answer asks for a change and offers no blind retry', async () => {
    const { card } = await mount(single(), { onSubmit: failing(422, { code: 'invalid_answer', message: 'choose exactly one option' }) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="server-error"]'), '请修改后重新提交', 'message');
    assert(!has(card, '[part~="retry-button"]'), 'no retry');
    assert(has(card, 'form'), 'still editable');
  });

  it('403 session_mismatch says the user may not answer', async () => {
    const { card } = await mount(single(), { onSubmit: failing(403, { code: 'session_mismatch', message: 'other session' }) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="server-error"]'), '你无权回答这个问题', 'message');
  });

  it('a throwing onSubmit reads as a network failure with a retry', async () => {
    const { card } = await mount(single(), { onSubmit: () => Promise.reject(new TypeError('Failed to fetch')) });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    includes(textOf(card, '[part~="server-error"]'), '网络连接失败', 'message');
    assert(has(card, '[part~="retry-button"]'), 'retry offered');
  });

  it('a non-ok Response from onSubmit is read for its error body', async () => {
    const body = { error: { code: 'expired', message: 'past' } };
    const { card } = await mount(single(), {
      onSubmit: () => Promise.resolve(new Response(JSON.stringify(body), { status: 410, headers: { 'content-type': 'application/json' } })),
    });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
  });
});

describe('ask-user-submit and a host that submits itself', () => {
  it('fires a bubbling, composed ask-user-submit with the full detail', async () => {
    const got: AskUserSubmitEvent[] = [];
    // The card sits inside another shadow root: composed events still reach the document.
    const host = document.createElement('div');
    document.body.append(host);
    const root = host.attachShadow({ mode: 'open' });
    const wrapper = document.createElement('div');
    root.append(wrapper);
    document.addEventListener('ask-user-submit', (e) => got.push(e), { once: true });
    const req = single();
    const { card } = await mount(req, {}, wrapper);
    await pick(card, '跳过');
    await submit(card);
    equal(got.length, 1, 'event reached the document');
    assert(got[0] instanceof AskUserSubmitEvent, 'typed event');
    assert(got[0]!.bubbles && got[0]!.composed, 'bubbles and composed');
    deepEqual(got[0]!.detail, {
      requestId: req.id,
      toolCallId: req.toolCallId,
      sessionId: 'sess-1',
      selections: ['skip'],
      customInput: '',
      cancelled: false,
    });
  });

  it('preventDefault hands the submission to the host: onSubmit is not called; markSubmitted shows the receipt', async () => {
    const { card, calls } = await mount(single());
    card.addEventListener('ask-user-submit', (e) => e.preventDefault());
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    equal(calls.length, 0, 'onSubmit skipped');
    equal(textOf(card, '[part~="submit-button"]'), '正在提交…', 'waits for the host');
    card.markSubmitted('2030-01-01T08:00:00.000Z');
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已提交', 'receipt');
    includes(textOf(card, '[part~="receipt-answer"]'), '先分析', 'chosen label');
    equal($(card, 'time').getAttribute('datetime'), '2030-01-01T08:00:00.000Z', 'host time');
  });

  it('showError from the host maps the result and fires no ask-user-error', async () => {
    let errors = 0;
    document.addEventListener('ask-user-error', () => errors++);
    const { card } = await mount(single());
    card.addEventListener('ask-user-submit', (e) => e.preventDefault());
    await pick(card, '先分析');
    await submit(card);
    card.showError({ ok: false, status: 503, error: { code: 'store_unavailable', message: 'down' } });
    await card.updateComplete;
    includes(textOf(card, '[part~="server-error"]'), '服务暂时不可用', 'message');
    equal(errors, 0, 'no event for a host call');
    card.showError(new TypeError('offline'));
    await card.updateComplete;
    includes(textOf(card, '[part~="server-error"]'), '网络连接失败', 'a thrown error');
  });

  it('markResolved closes the card from interaction_resolved, with labels of the ids', async () => {
    const req = multiple();
    const { card } = await mount(req);
    card.markResolved({
      requestId: 'ask_someone_else_xxxxxxxxxxx',
      toolCallId: 'c',
      status: 'answered',
      at: '',
      selections: [],
      customInputLength: 0,
    });
    await card.updateComplete;
    assert(has(card, 'form'), 'another request is ignored');
    card.markResolved({
      requestId: req.id,
      toolCallId: req.toolCallId,
      status: 'answered',
      at: '2030-01-01T00:00:00Z',
      selections: ['implement', 'gone'],
      customInputLength: 3,
    });
    await card.updateComplete;
    includes(textOf(card, '[part~="receipt-answer"]'), '直接实现、gone', 'labels, unknown id as itself');
  });

  it('markResolved with superseded says so', async () => {
    const req = single();
    const { card } = await mount(req);
    card.markResolved({ requestId: req.id, status: 'superseded' });
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已被新消息取代', 'status');
  });
});

describe('focus and request changes', () => {
  it('moves focus to the card when it appears', async () => {
    const { card } = await mount(single());
    equal(deepActiveElement(), $(card, 'fieldset'), 'focus on the question');
  });

  it('no-autofocus leaves focus where it was', async () => {
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    await mount(single(), { noAutofocus: true });
    equal(document.activeElement, input, 'focus stayed');
  });

  it('a refused answer moves focus to the invalid field', async () => {
    const { card } = await mount(text());
    await submit(card);
    await card.updateComplete;
    equal(deepActiveElement(), $(card, '#field'), 'focus on the field');
  });

  it('a new request resets the card', async () => {
    const { card } = await mount(single());
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    assert(has(card, '[part~="receipt"]'), 'receipt');
    card.request = multiple();
    await card.updateComplete;
    assert(has(card, 'form'), 'a fresh form');
    equal($$<HTMLInputElement>(card, 'input:checked').length, 0, 'nothing pre-checked');
    excludes(live(card), '已提交', 'live region cleared');
  });

  it('the same request re-set as expired turns into the timeout receipt', async () => {
    const req = single();
    const { card } = await mount(req);
    card.request = { ...req, status: 'expired' };
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), '已超时', 'status');
  });
});
