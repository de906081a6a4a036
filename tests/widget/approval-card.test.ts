/**
 * The approval card (§12) in the browser: argument view, decisions, reason, edit forms, "always", the 422
 * of the server, the receipt (also restored), keyboard only, axe in every state, 375 px and both locales.
 */
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { describe, it, afterEach, after } from './helpers/bdd.js';
import { assert, deepEqual, equal, includes, until } from './helpers/expect.js';
import { checkA11y } from './helpers/axe.js';
import { $, $$, cancel, cleanup, deepActiveElement, has, mount, settle, submit, textOf, type } from './helpers/card-fixtures.js';
import { recordingFetch, refused } from './helpers/form-fixtures.js';
import { approval, drawn, LONG } from './helpers/approval-fixtures.js';
import type { AskUserSubmitEvent } from '../../widget/events.js';
import type { AskUserCard } from '../../widget/ask-user-card.js';

afterEach(cleanup);
after(() => setViewport({ width: 800, height: 600 }));

async function open(props: Parameters<typeof mount>[1] = {}) {
  const sent: AskUserSubmitEvent['detail'][] = [];
  const { card } = await mount(approval(), { locale: 'en', ...props });
  card.addEventListener('ask-user-submit', (e) => sent.push(e.detail));
  await drawn(card);
  await card.updateComplete;
  return { card, sent };
}

const click = async (card: AskUserCard, selector: string) => {
  $(card, selector).click();
  await card.updateComplete;
};
const kind = (card: AskUserCard) => card.shadowRoot!.querySelector<HTMLElement>('[part~="receipt"]')?.dataset.kind;

describe('approval card: the arguments', () => {
  it('lists each call: title, tool, keys and values as text, nested objects and arrays, long values folded', async () => {
    const { card } = await open();
    deepEqual(
      $$(card, '.call > legend').map((l) => l.textContent),
      ['Delete build/', 'Push to origin', 'Deploy'],
      'titles',
    );
    equal(textOf(card, '#a0-tool'), 'Tool: delete_file');
    const dts = $$(card, '.call:first-of-type .args dt').map((d) => d.textContent);
    deepEqual(dts, ['path', 'odd key <b>', 'token', 'log'], 'keys as text');
    equal(card.shadowRoot!.querySelector('.args img, .args b'), null, 'no HTML from values or keys');
    includes(textOf(card, '.call:first-of-type .args'), '<img src=x onerror=alert(1)>', 'a value shown as it is');
    includes(textOf(card, '.call:first-of-type .args'), '[redacted]', 'a redacted value as the host wrote it');
    // The long log is folded behind "Show all", which unfolds and folds it again.
    const fold = $<HTMLButtonElement>(card, '.call:first-of-type .fold');
    equal(fold.getAttribute('aria-expanded'), 'false');
    const shown = () => card.shadowRoot!.getElementById(fold.getAttribute('aria-controls')!)!.textContent!;
    assert(shown().length < LONG.length, 'folded');
    fold.click();
    await card.updateComplete;
    equal(shown(), LONG, 'unfolded: all of it');
    equal(fold.getAttribute('aria-expanded'), 'true');
    // Nesting: an array of an object and a string, an object in an object, an empty array.
    const deploy = $$(card, '.call')[2]!;
    equal(deploy.querySelectorAll('.args ol > li').length, 2, 'array items');
    assert(deploy.querySelector('.args ol > li dl dt')?.textContent === 'name', 'an object inside an array');
    assert(deploy.querySelector('.args dd dl dd dl dt')?.textContent === 'deep', 'an object two levels down');
    includes(deploy.querySelector('.args')!.textContent, '(empty)', 'an empty list');
  });
});

describe('approval card: deciding', () => {
  it('blocks submit until every call has a decision, naming each call that lacks one', async () => {
    const { card, sent } = await open();
    equal($$<HTMLInputElement>(card, 'input[type=radio]').filter((r) => r.checked).length, 0, 'nothing preselected');
    await submit(card);
    equal(sent.length, 0, 'nothing sent');
    equal($$(card, '[id$="error-decision"]').length, 3, 'a message per call');
    equal(textOf(card, '#a0-error-decision'), 'Choose Approve or Deny');
    equal($(card, '#a0-approve').getAttribute('aria-invalid'), 'true');
    includes($(card, '.call .decision').getAttribute('aria-describedby'), 'a0-error-decision');
    equal(deepActiveElement(), $(card, '#a0-approve'), 'focus on the first call to decide');
    await checkA11y(card, 'no decision yet');
    // Deciding a call clears its message as it is fixed.
    await click(card, '#a0-deny');
    equal(has(card, '#a0-error-decision'), false);
  });

  it('sends one decision per call in order: deny with reason, approve with edits, always', async () => {
    const { card, sent } = await open();
    await click(card, '#a0-deny');
    await type(card, '#a0-reason', 'not now');
    await click(card, '#a1-approve');
    await click(card, '#a1-always');
    await click(card, '#a1-edit');
    await type(card, '#a1-field-0', 'release');
    await click(card, '#a2-approve');
    await checkA11y(card, 'deny with reason, edit, always');
    await submit(card);
    equal(sent.length, 1);
    deepEqual(sent[0]!.decisions, [
      { toolCallId: 'call_a', decision: 'deny', reason: 'not now' },
      { toolCallId: 'call_b', decision: 'approve', arguments: { branch: 'release', force: false }, always: true },
      { toolCallId: 'call_c', decision: 'approve' },
    ]);
    equal(sent[0]!.cancelled, false);
    await until(() => kind(card) === 'answered', 'the receipt');
    const said = $$(card, '[part~="receipt-answer"] dd').map((d) => d.textContent!.trim());
    deepEqual(said, ['Denied: not now', 'Approved for the rest of this session', 'Approved'], 'the receipt lists each decision');
    await checkA11y(card, 'receipt');
  });

  it('leaves out a blank reason, an unchanged edit and an unticked always', async () => {
    const { card, sent } = await open();
    await click(card, '#a0-deny');
    await type(card, '#a0-reason', '   ');
    await click(card, '#a1-approve');
    await click(card, '#a1-edit');
    await click(card, '#a2-approve');
    await submit(card);
    deepEqual(sent[0]!.decisions, [
      { toolCallId: 'call_a', decision: 'deny' },
      { toolCallId: 'call_b', decision: 'approve' },
      { toolCallId: 'call_c', decision: 'approve' },
    ]);
  });

  it('refuses an edit the schema refuses at the field it names, and a reason over 500 code points', async () => {
    const { card, sent } = await open();
    await click(card, '#a0-deny');
    await type(card, '#a0-reason', '😀'.repeat(501));
    await click(card, '#a1-approve');
    await click(card, '#a1-edit');
    await type(card, '#a1-field-0', 'Not A Branch');
    await click(card, '#a2-approve');
    await click(card, '#a2-edit');
    await type(card, '#a2-json', '{"empty":[1]}');
    await submit(card);
    equal(sent.length, 0, 'nothing sent');
    equal(textOf(card, '#a0-error-reason'), 'Too long: at most 500 characters');
    equal($(card, '#a1-field-0').getAttribute('aria-invalid'), 'true', 'the branch field');
    includes($(card, '#a1-field-0').getAttribute('aria-describedby'), 'a1-error-0');
    equal(textOf(card, '#a1-error-0'), 'Does not fit what this tool accepts');
    equal($(card, '#a2-json').getAttribute('aria-invalid'), 'true', 'the JSON text');
    await checkA11y(card, 'refused edits');
    // Exactly 500 emoji are fine.
    await type(card, '#a0-reason', '😀'.repeat(500));
    await type(card, '#a1-field-0', 'dev');
    await type(card, '#a2-json', '{"targets":[]}');
    await submit(card);
    equal(sent.length, 1);
    deepEqual(sent[0]!.decisions![2], { toolCallId: 'call_c', decision: 'approve', arguments: { targets: [] } });
  });

  it('cancels with decisions: []', async () => {
    const net = recordingFetch();
    const { card } = await open({ onSubmit: undefined, endpoint: '/api', fetch: net.fetch });
    await cancel(card);
    await until(() => kind(card) === 'cancelled', 'the cancelled receipt');
    deepEqual(net.posted[0]!.body, { sessionId: 'sess-1', requestId: card.request!.id, decisions: [], cancelled: true });
  });

  it("posts { sessionId, requestId, decisions, cancelled } and marks the field of the server's 422", async () => {
    const reply = refused(422, { code: 'invalid_answer', message: 'branch', field: 'decisions[1].arguments.branch' });
    const net = recordingFetch(() => reply());
    const { card } = await open({ onSubmit: undefined, endpoint: '/api', fetch: net.fetch });
    await click(card, '#a0-approve');
    await click(card, '#a1-approve');
    await click(card, '#a1-edit');
    await type(card, '#a1-field-0', 'other');
    await click(card, '#a2-deny');
    await submit(card);
    await until(() => net.posted.length === 1 && card.shadowRoot!.querySelector('#a1-error-0'), 'the refusal marked');
    deepEqual(net.posted[0]!.body, {
      sessionId: 'sess-1',
      requestId: card.request!.id,
      decisions: [
        { toolCallId: 'call_a', decision: 'approve' },
        { toolCallId: 'call_b', decision: 'approve', arguments: { branch: 'other', force: false } },
        { toolCallId: 'call_c', decision: 'deny' },
      ],
      cancelled: false,
    });
    equal(textOf(card, '#a1-error-0'), 'The server did not accept this; change it');
    equal(deepActiveElement(), $(card, '#a1-field-0'), 'focus on the refused field');
    await checkA11y(card, '422');
  });
});

describe('approval card: receipts, keyboard, width, locales', () => {
  it('draws a restored receipt with its decisions', async () => {
    const { card } = await mount(approval(), { locale: 'en' });
    card.receipt = {
      kind: 'answered',
      at: '2026-01-02T03:04:05Z',
      decisions: [
        { toolCallId: 'call_a', decision: 'deny', reason: 'too risky' },
        { toolCallId: 'call_b', decision: 'approve', arguments: { branch: 'x' } },
        { toolCallId: 'call_c', decision: 'approve' },
      ],
    };
    await until(() => card.shadowRoot!.querySelector('[part~="receipt-answer"] dd'), 'the restored receipt');
    deepEqual(
      $$(card, '[part~="receipt-answer"] dd').map((d) => d.textContent!.trim()),
      ['Denied: too risky', 'Approved with edits', 'Approved'],
    );
    await checkA11y(card, 'restored receipt');
  });

  it('is answered with the keyboard alone', async () => {
    const sent: AskUserSubmitEvent['detail'][] = [];
    const { card } = await mount(approval(), { locale: 'en' });
    card.addEventListener('ask-user-submit', (e) => sent.push(e.detail));
    await drawn(card);
    await settle(card);
    equal(deepActiveElement(), $(card, 'h2'), 'focus starts at the heading');
    // Tab to the first call's radios (past its "Show all"), choose Deny with the arrow key.
    const tabTo = async (id: string) => {
      for (let i = 0; i < 20 && deepActiveElement()?.id !== id; i++) await sendKeys({ press: 'Tab' });
      equal(deepActiveElement()?.id, id, `reached #${id}`);
    };
    await tabTo('a0-approve');
    await sendKeys({ press: 'ArrowDown' });
    equal(deepActiveElement()?.id, 'a0-deny');
    await tabTo('a1-approve');
    await sendKeys({ press: 'Space' });
    await tabTo('a2-approve');
    await sendKeys({ press: 'Space' });
    await card.updateComplete;
    await sendKeys({ press: 'Enter' });
    await until(() => sent.length === 1, 'submitted by Enter');
    deepEqual(
      sent[0]!.decisions!.map((d) => d.decision),
      ['deny', 'approve', 'approve'],
    );
  });

  it('fits 375 px with every part open', async () => {
    await setViewport({ width: 375, height: 700 });
    const { card } = await open();
    await click(card, '#a0-deny');
    await click(card, '#a1-approve');
    await click(card, '#a1-edit');
    await click(card, '#a2-approve');
    await click(card, '#a2-edit');
    const base = $(card, '[part~="base"]');
    assert(base.scrollWidth <= base.clientWidth, `the card scrolls sideways: ${base.scrollWidth} > ${base.clientWidth}`);
    assert(document.documentElement.scrollWidth <= 375, `the page scrolls sideways: ${document.documentElement.scrollWidth}`);
  });

  it('speaks zh-CN by default and takes overrides', async () => {
    const { card } = await mount(approval(), { strings: { approve: '同意' } });
    await drawn(card);
    await card.updateComplete;
    equal(textOf(card, 'label[for="a0-approve"]'), '同意');
    equal(textOf(card, 'label[for="a0-deny"]'), '拒绝');
    equal(textOf(card, '#a0-tool'), '工具：delete_file');
    await click(card, '#a1-approve');
    includes(textOf(card, 'label[for="a1-always"]'), '本次会话中始终允许 git_push');
    await checkA11y(card, 'zh-CN');
  });
});
