/**
 * The rules a submit needs (widget/submit-rules.ts: the answer checks, what a failure means) load apart
 * (widget/submit-rules-loader.ts), started when a card is put in the page. This file imports no card
 * fixture, which would wait for them: its page has not loaded them when its card is answered at once.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { deepEqual, equal, includes, until } from './helpers/expect.js';
import type { AskUserCard, AskUserRequest } from '../../widget/ask-user-card.js';
import '../../widget/ask-user-card.js';
import { lazyModule, submitRules } from '../../widget/submit-rules-loader.js';

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

describe('a submit before the rules are in', () => {
  afterEach(() => document.querySelectorAll('ask-user-card').forEach((c) => c.remove()));

  it('is checked once they are: an empty choice is refused, a fixed one sent once', async () => {
    equal(submitRules.get(), undefined, 'no card has loaded the rules on this page yet');
    const sent: unknown[][] = [];
    const card = document.createElement('ask-user-card') as AskUserCard;
    card.noAutofocus = true;
    card.locale = 'en';
    card.onSubmit = (...args) => void sent.push(args);
    card.request = request;
    document.body.append(card);
    await card.updateComplete;
    const root = card.shadowRoot!;
    const submit = () => root.querySelector<HTMLButtonElement>('[part~="submit-button"]')!.click();

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
