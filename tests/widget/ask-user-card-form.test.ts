/**
 * A card of several questions (docs/protocol.md §9.2): one form with a heading, each question with its
 * header chip, bounds and default; one submit sending `answers`, one cancel sending `answers: []`; refusals
 * by the card or the server land on the question they name; the receipt lists every question.
 */
import { sendKeys } from '@web/test-runner-commands';
import type { AskUserCard } from '../../widget/ask-user-card.js';
import { describe, it, afterEach } from './helpers/bdd.js';
import { checkA11y } from './helpers/axe.js';
import { assert, deepEqual, equal, includes, until } from './helpers/expect.js';
import { $, $$, cancel, cleanup, deepActiveElement, has, mount, settle, submit, textOf, type } from './helpers/card-fixtures.js';
import { form, recordingFetch, refused } from './helpers/form-fixtures.js';

afterEach(cleanup);

const press = (key: string) => sendKeys({ press: key });

/** A card that submits by itself to a recording fetch. */
async function mountForm(respond?: Parameters<typeof recordingFetch>[0], locale?: string) {
  const net = recordingFetch(respond);
  // No onSubmit: the card posts by itself, so the exact body can be read.
  const { card } = await mount(form(), { onSubmit: undefined, endpoint: '/api', fetch: net.fetch, ...(locale && { locale }) });
  return { card, posted: net.posted };
}

const answerRows = (card: AskUserCard) =>
  $$(card, '[part~="receipt-answer"] dt').map((dt) => [dt.textContent!.trim(), dt.nextElementSibling!.textContent!.trim()]);

describe('a card of several questions', () => {
  it('draws one form: the heading, the introduction, each question with its header chip, bounds and default', async () => {
    const { card } = await mountForm();
    equal(textOf(card, 'h2'), '开始之前确认三件事', 'the card title is the heading');
    equal($(card, 'form').getAttribute('aria-labelledby'), 'title');
    equal(textOf(card, '#description'), '回答后助手继续执行。');
    deepEqual(
      $$(card, 'legend').map((l) => l.textContent!.replace(/\s+/g, ' ').trim()),
      ['方式 怎么做？', '并发 并发数', '备注 补充说明 （选填）'],
      'legends: header chip, title, optional marker',
    );
    deepEqual(
      $$(card, '[part~="header"]').map((h) => h.textContent),
      ['方式', '并发', '备注'],
    );
    equal($$(card, '[part~="optional"]').length, 1, 'only the optional question is marked');
    equal($<HTMLInputElement>(card, '#q0-option-0').checked, true, 'the single default is checked');
    equal($<HTMLInputElement>(card, '#q0-option-0').name, 'q0-choice', 'each question has its own radio group');
    const workers = $<HTMLInputElement>(card, '#q1-field');
    deepEqual(
      [workers.type, workers.min, workers.max, workers.step, workers.value, workers.placeholder],
      ['number', '1', '8', '1', '4', '1–8'],
    );
    equal(workers.getAttribute('aria-labelledby'), 'q1-title', 'the field is named by its own question');
    includes(workers.getAttribute('aria-describedby'), 'q1-description');
    const note = $<HTMLTextAreaElement>(card, '#q2-field');
    deepEqual([note.hasAttribute('maxlength'), note.placeholder, note.value], [false, '可不填', '']);
    includes(textOf(card, '#q2-hint'), '200', 'its maxLength, in the hint');
    equal(textOf(card, '[part~="submit-button"]'), '开始', 'one submit with the card’s label');
    equal($$(card, 'button').length, 2, 'one submit and one cancel for the whole card');
    equal(deepActiveElement(), $(card, 'h2'), 'focus starts on the heading, which names the whole form');
  });

  it('shows focus on the heading as a ring on the rounded card, not a square inside it', async () => {
    // After typing (a chat message, say) Chromium shows programmatic focus, the case the ring is about.
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    await press('a');
    const { card } = await mountForm();
    const heading = $(card, 'h2');
    assert(heading.matches(':focus-visible'), 'focus is shown');
    equal(getComputedStyle(heading).outlineStyle, 'none', 'no ring of its own');
    equal(getComputedStyle($(card, '[part~="base"]')).outlineStyle, 'solid', 'the card shows the focus');
  });

  it('is answered by keyboard only; the body holds one answer per question, the optional one blank', async () => {
    const { card, posted } = await mountForm();
    await press('Tab');
    equal(deepActiveElement(), $(card, '#q0-option-0'), 'the checked radio of question 1');
    await press('ArrowDown');
    await press('Tab');
    equal(deepActiveElement(), $(card, '#q1-field'), 'question 2');
    await press('ArrowUp');
    await press('Tab');
    equal(deepActiveElement(), $(card, '#q2-field'), 'question 3');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="submit-button"]'));
    await press('Enter');
    await until(() => has(card, '[part~="receipt"]'), 'the receipt');
    deepEqual(posted, [
      {
        url: '/api/chat/continue',
        body: {
          sessionId: 'sess-1',
          requestId: card.request!.id,
          answers: [
            { id: 'plan', selections: ['implement'], customInput: '' },
            { id: 'workers', selections: [], customInput: '5' },
            { id: 'note', selections: [], customInput: '' },
          ],
          cancelled: false,
        },
      },
    ]);
  });

  it('a refusal by the card names the right question, focuses it and sends nothing', async () => {
    const { card, posted } = await mountForm();
    await type(card, '#q1-field', '9');
    await submit(card);
    await settle(card);
    equal(posted.length, 0, 'nothing sent');
    const field = $(card, '#q1-field');
    equal(field.getAttribute('aria-invalid'), 'true');
    includes(field.getAttribute('aria-describedby'), 'q1-error-customInput');
    equal(textOf(card, '#q1-error-customInput'), '不能大于 8');
    assert($(card, '[data-q="1"]').contains($(card, '[part~="error"]')), 'the message is inside question 2');
    equal($$(card, '[aria-invalid="true"]').length, 1, 'the other questions are fine');
    equal(deepActiveElement(), field, 'focus on the invalid field');
    await type(card, '#q1-field', '8');
    equal(has(card, '[part~="error"]'), false, 'the message goes once the answer is fixed');
  });

  it('shows every refused question at once; an optional question left blank is not one of them', async () => {
    const { card, posted } = await mountForm();
    const req = form();
    req.questions![2] = { ...req.questions![2]!, required: true };
    card.request = req;
    await card.updateComplete;
    await type(card, '#q1-field', '0');
    await submit(card);
    deepEqual(
      $$(card, '[aria-invalid="true"]').map((el) => el.id),
      ['q1-field', 'q2-field'],
      'a required text left blank is refused too',
    );
    equal(posted.length, 0);
  });

  it('a server 422 naming answers[1].customInput lands on question 2', async () => {
    const { card, posted } = await mountForm(
      refused(422, { code: 'invalid_answer', message: 'expected a number of at most 8', field: 'answers[1].customInput' }),
    );
    await submit(card);
    await until(() => has(card, '[part~="server-error"]'), 'the refusal');
    equal(posted.length, 1);
    const field = $(card, '#q1-field');
    equal(field.getAttribute('aria-invalid'), 'true');
    equal(textOf(card, '#q1-error-customInput'), '服务器未接受这一项，请修改');
    equal(deepActiveElement(), field, 'focus where the change is needed');
    equal($$(card, '[aria-invalid="true"]').length, 1);
    includes(textOf(card, '[part~="server-error"]'), 'expected a number of at most 8');
  });

  it('cancel sends answers: [] and shows the cancelled receipt', async () => {
    const { card, posted } = await mountForm();
    await cancel(card);
    await until(() => has(card, '[part~="receipt"]'), 'the receipt');
    deepEqual(posted[0]!.body, { sessionId: 'sess-1', requestId: card.request!.id, answers: [], cancelled: true });
    equal($(card, '[part~="receipt"]').dataset.kind, 'cancelled');
    equal(has(card, '[part~="receipt-answer"]'), false);
  });

  it('the receipt lists every question with its answer; a blank optional one reads skipped', async () => {
    const { card } = await mountForm();
    await type(card, '#q1-field', '6');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'the receipt');
    equal(textOf(card, '[part~="receipt-question"]'), '开始之前确认三件事');
    deepEqual(answerRows(card), [
      ['方式', '先分析'],
      ['并发', '6'],
      ['备注', '（跳过）'],
    ]);
  });

  it('the receipt says the Other text beside the labels and falls back on the title without a header', async () => {
    const req = form();
    req.questions = [
      { id: 'a', title: '选哪些？', mode: 'multiple', options: [...req.questions![0]!.options!], allowCustom: true, required: true },
      { id: 'b', title: '目录', mode: 'directory', required: true },
    ];
    const { card, calls } = await mount(req);
    $<HTMLInputElement>(card, '#q0-option-0').click();
    $<HTMLInputElement>(card, '#q0-option-2').click();
    await type(card, '#q0-other', '再看看');
    await type(card, '#q1-field', 'src/app');
    await submit(card);
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: false }], 'onSubmit keeps its first three arguments');
    deepEqual(answerRows(card), [
      ['选哪些？', '先分析、跳过、再看看'],
      ['目录', 'src/app'],
    ]);
  });

  it('onSubmit and ask-user-submit get the answers; a card of one question gets no fourth argument', async () => {
    const got: unknown[][] = [];
    const details: unknown[] = [];
    const { card } = await mount(form(), { onSubmit: (...args: unknown[]) => void got.push(args) } as never);
    card.addEventListener('ask-user-submit', (e) => details.push(e.detail.answers));
    await submit(card);
    await settle(card);
    const answers = [
      { id: 'plan', selections: ['safe'], customInput: '' },
      { id: 'workers', selections: [], customInput: '4' },
      { id: 'note', selections: [], customInput: '' },
    ];
    deepEqual(got, [[[], '', false, answers]]);
    deepEqual(details, [answers]);
  });

  it('speaks English', async () => {
    const { card } = await mountForm(undefined, 'en');
    equal(textOf(card, '[part~="optional"]'), '(optional)');
    await submit(card);
    await until(() => has(card, '[part~="receipt"]'), 'the receipt');
    deepEqual(answerRows(card)[2], ['备注', '(skipped)']);
  });

  it('shows model text in headers, titles, descriptions and labels as text, in the form and the receipt', async () => {
    const bad = '<img src=x onerror="window.__formXss=1">';
    const req = form({ title: bad, description: bad });
    req.questions = req.questions!.map((q) => ({
      ...q,
      header: bad,
      title: bad,
      description: bad,
      ...(q.options && { options: q.options.map((o) => ({ ...o, label: bad })) }),
    }));
    const { card } = await mount(req);
    equal(card.shadowRoot!.querySelectorAll('img').length, 0, 'no element from model text');
    equal(textOf(card, 'h2'), bad);
    equal(textOf(card, '[part~="header"]'), bad);
    await submit(card);
    await settle(card);
    equal(card.shadowRoot!.querySelectorAll('img').length, 0, 'none in the receipt either');
    equal($$(card, '[part~="receipt-answer"] dt')[0]!.textContent, bad);
    equal((window as unknown as { __formXss?: number }).__formXss, undefined);
  });

  it('has no axe violation fresh, invalid, refused by the server, submitting, or as a receipt', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const { card } = await mountForm(async () => {
      await hold;
      return refused(503, { code: 'store_unavailable', message: 'down' })();
    });
    await checkA11y(card, 'fresh form');
    await type(card, '#q1-field', '9');
    await submit(card);
    await checkA11y(card, 'invalid form');
    await type(card, '#q1-field', '3');
    await submit(card);
    equal($(card, 'form').getAttribute('aria-busy'), 'true');
    await checkA11y(card, 'submitting form');
    release();
    await until(() => has(card, '[part~="retry-button"]'), 'the retry');
    await checkA11y(card, 'server error');
    const net = recordingFetch();
    card.fetch = net.fetch;
    $<HTMLButtonElement>(card, '[part~="retry-button"]').click();
    await until(() => has(card, '[part~="receipt"]'), 'the receipt');
    await checkA11y(card, 'receipt');
  });
});
