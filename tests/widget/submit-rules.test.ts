/**
 * The rules a submit needs (widget/submit-rules.ts: the answer checks, what a failure means) load apart
 * (widget/submit-rules-loader.ts), started when a card is put in the page. This file imports no card
 * fixture, which would wait for them: its page has not loaded them when its card is answered at once.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { assert as ok, deepEqual, equal, includes, until } from './helpers/expect.js';
import type { AskUserCard, AskUserRequest } from '../../widget/ask-user-card.js';
import '../../widget/ask-user-card.js';
import { lazyModule, submitRules } from '../../widget/submit-rules-loader.js';
import { STRINGS } from '../../widget/strings.js';

const request: AskUserRequest = {
  id: 'ask_RULESRULESRULESRULES00',
  toolCallId: 'call_rules',
  sessionId: 'sess-1',
  title: 'Which way?',
  mode: 'single',
  options: [
    { id: 'safe', label: 'Safe' },
    { id: 'fast', label: 'Fast' },
  ],
  resumable: true,
};

describe('lazyModule', () => {
  it('loads once, and a failed load gives undefined and is tried again on the next load()', async () => {
    let calls = 0;
    let fail = true;
    const lazy = lazyModule(async () => {
      calls++;
      if (fail) throw new TypeError('Failed to fetch dynamically imported module');
      return { answer: 42 };
    });
    equal(lazy.get(), undefined, 'nothing before a load');
    equal(await lazy.load(), undefined, 'a failed load');
    equal(lazy.get(), undefined, 'still nothing');
    fail = false;
    deepEqual(await lazy.load(), { answer: 42 }, 'the next load tries again');
    deepEqual(lazy.get(), { answer: 42 });
    await lazy.load();
    equal(calls, 2, 'a loaded module is not imported again');
  });
});

/** A card answered by `onSubmit`, recording what it sends. */
async function mount(id: string): Promise<{ card: AskUserCard; root: ShadowRoot; sent: unknown[][]; submit: () => void }> {
  const sent: unknown[][] = [];
  const card = document.createElement('ask-user-card') as AskUserCard;
  card.noAutofocus = true;
  card.locale = 'en';
  card.onSubmit = (...args) => void sent.push(args);
  card.request = { ...request, id };
  document.body.append(card);
  await card.updateComplete;
  const root = card.shadowRoot!;
  return { card, root, sent, submit: () => root.querySelector<HTMLButtonElement>('[part~="submit-button"]')!.click() };
}

describe('a submit before the rules are in', () => {
  afterEach(() => document.querySelectorAll('ask-user-card').forEach((c) => c.remove()));

  it('is checked once they are: an empty choice is refused, a fixed one sent once', async () => {
    equal(submitRules.get(), undefined, 'no card has loaded the rules on this page yet');
    const { card, root, sent, submit } = await mount(request.id);

    submit();
    equal(submitRules.get(), undefined, 'the submit came before the rules');
    const error = await until(() => root.querySelector('#error-selections'), 'the refusal next to the options');
    includes(error.textContent, 'Choose an option', 'the refusal');
    deepEqual(sent, [], 'nothing sent for an empty choice');

    root.querySelectorAll<HTMLInputElement>('input[type="radio"]')[1]!.click();
    await card.updateComplete;
    submit();
    await until(() => root.querySelector('[part~="receipt"]'), 'the receipt');
    deepEqual(sent, [[['fast'], '', false]], 'sent once, with the chosen id');
  });
});

// After the test above: the rules are in, so this one makes their file fail as it would offline.
describe('when the rules’ file cannot be loaded', () => {
  afterEach(() => document.querySelectorAll('ask-user-card').forEach((c) => c.remove()));

  it('a submit or a cancel says the answer was not sent and sends nothing; the next submit loads the file again', async () => {
    const { get, load } = submitRules;
    let tries = 0;
    Object.assign(submitRules, { get: () => undefined, load: async () => void tries++ });
    const { card, root, sent, submit } = await mount('ask_RULESRULESRULESRULES01');
    try {
      root.querySelectorAll<HTMLInputElement>('input[type="radio"]')[0]!.click();
      await card.updateComplete;
      submit();
      const error = await until(() => root.querySelector('[part~="server-error"]'), 'the message');
      includes(error.textContent, STRINGS.en.errorNetwork, 'the message');
      root.querySelector<HTMLButtonElement>('[part~="cancel-button"]')!.click();
      await new Promise((resolve) => setTimeout(resolve, 50));
      deepEqual(sent, [], 'nothing sent');
      equal(root.querySelector('[part~="receipt"]'), null, 'no receipt');
      ok(tries >= 3, `each try loads the file again (${tries} tries)`);
    } finally {
      Object.assign(submitRules, { get, load });
    }
    submit();
    await until(() => root.querySelector('[part~="receipt"]'), 'the receipt');
    deepEqual(sent, [[['safe'], '', false]], 'sent once the file is in');
  });
});
