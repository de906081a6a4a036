/**
 * A card finds its provider whatever the order of definition and insertion, and a card that has no way
 * to send an answer says so instead of waiting in "submitting" for ever. From the sources: this page
 * defines <ask-user-card> only; <ask-user-provider> (or a host's own provider) is defined by the tests,
 * after cards in static markup were upgraded and asked for their context, which is how the standalone
 * bundle used to order things (card first) and why the README's snippet never reached its provider.
 */
import { ContextProvider } from '@lit/context';
import { afterEach, describe, it } from './helpers/bdd.js';
import { equal, until } from './helpers/expect.js';
import '../../widget/ask-user-card.js';
import { askUserContext } from '../../widget/context.js';
import type { AskUserErrorEvent } from '../../widget/events.js';
import { STRINGS } from '../../widget/strings.js';
import {
  answerFirstOption,
  partText,
  recordingFetch,
  sessionlessRequest,
  staticMarkup,
  untilSubmitLabel,
  type AnyCard,
} from './helpers/late-provider.js';

afterEach(() => {
  for (const el of [...document.body.children]) if (el.localName !== 'script') el.remove();
});

const settle = async (card: AnyCard) => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 0));
    await card.updateComplete;
  }
};

/** A plain custom element (not Lit) that provides the card context, defined only when the test says so. */
function defineHostProvider(tag: string, value: { endpoint: string; sessionId: string; locale: string; fetch: typeof fetch }) {
  customElements.define(
    tag,
    class extends HTMLElement {
      provider = new ContextProvider(this, { context: askUserContext, initialValue: value });
      connectedCallback() {
        // Not a ReactiveControllerHost: a plain element announces its provider itself.
        this.provider.hostConnected();
      }
    },
  );
}

describe('a card upgraded before its provider exists', () => {
  it('takes the locale, session, endpoint and fetch of an <ask-user-provider> defined after it', async () => {
    equal(customElements.get('ask-user-provider'), undefined, 'precondition: <ask-user-provider> is not defined yet');
    staticMarkup(
      '<ask-user-provider endpoint="/late/api" session-id="sess-late" locale="en"><ask-user-card no-autofocus></ask-user-card></ask-user-provider>',
    );
    const net = recordingFetch();
    // A property set before the upgrade, as a host script running before the bundle would.
    Object.assign(document.querySelector('ask-user-provider')!, { fetch: net.fn });
    const card = document.querySelector('ask-user-card') as AnyCard;
    card.request = sessionlessRequest();
    await card.updateComplete;
    equal(partText(card, '[part~="submit-button"]'), STRINGS['zh-CN'].submit, 'no provider yet: the default locale');

    await import('../../widget/ask-user-provider.js');
    await untilSubmitLabel(card, STRINGS.en.submit, "the provider's locale once it is defined");
    await answerFirstOption(card);
    await until(() => net.sent.length === 1, "one POST through the provider's fetch");
    equal(net.sent[0]!.url, '/late/api/chat/continue', "the provider's endpoint");
    equal(net.sent[0]!.body.sessionId, 'sess-late', "the provider's session");
    await until(() => partText(card, '[part~="receipt-status"]') === STRINGS.en.receiptAnswered, 'the English receipt');
  });

  it("takes the context of a host's own provider element that connects after the card", async () => {
    staticMarkup('<late-host-one><ask-user-card no-autofocus></ask-user-card></late-host-one>');
    const card = document.querySelector('ask-user-card') as AnyCard;
    card.request = sessionlessRequest();
    await card.updateComplete;
    equal(partText(card, '[part~="submit-button"]'), STRINGS['zh-CN'].submit, 'no provider yet: the default locale');

    const net = recordingFetch();
    defineHostProvider('late-host-one', { endpoint: '/host/api', sessionId: 'sess-host', locale: 'en', fetch: net.fn });
    await untilSubmitLabel(card, STRINGS.en.submit, "the host provider's locale");
    await answerFirstOption(card);
    await until(() => net.sent.length === 1, "one POST through the host provider's fetch");
    equal(net.sent[0]!.url, '/host/api/chat/continue', 'endpoint');
    equal(net.sent[0]!.body.sessionId, 'sess-host', 'session');
  });
});

describe('a card with no way to send its answer', () => {
  const withoutNetwork = async (body: (fetched: () => number) => Promise<void>) => {
    const original = window.fetch;
    let count = 0;
    window.fetch = (() => {
      count++;
      return Promise.reject(new Error('must not be called'));
    }) as typeof fetch;
    try {
      await body(() => count);
    } finally {
      window.fetch = original;
    }
  };

  for (const locale of ['zh-CN', 'en'] as const) {
    it(`says so (${locale}) instead of waiting in "submitting", and fires ask-user-error`, () =>
      withoutNetwork(async (fetched) => {
        const errors: AskUserErrorEvent[] = [];
        const onError = (e: AskUserErrorEvent) => errors.push(e);
        document.addEventListener('ask-user-error', onError);
        try {
          staticMarkup(`<ask-user-card no-autofocus locale="${locale}"></ask-user-card>`);
          const card = document.querySelector('ask-user-card') as AnyCard;
          card.request = sessionlessRequest();
          await card.updateComplete;
          await answerFirstOption(card);
          await settle(card);
          const s = STRINGS[locale];
          equal(typeof s.errorNoSubmitter, 'string', 'the strings have errorNoSubmitter');
          equal(partText(card, '[part~="server-error"] p'), s.errorNoSubmitter, 'the card says it cannot send');
          equal(partText(card, '[part~="submit-button"]'), s.submit, 'not "submitting": the form is open again');
          equal(errors.length, 1, 'ask-user-error');
          equal(errors[0]!.detail.failure.error?.code, 'no_submitter', 'its code');
          equal(fetched(), 0, 'nothing was sent');
        } finally {
          document.removeEventListener('ask-user-error', onError);
        }
      }));
  }

  it('sends with the next submit once a provider arrived after the error', async () => {
    staticMarkup('<late-host-two><ask-user-card no-autofocus locale="en"></ask-user-card></late-host-two>');
    const card = document.querySelector('ask-user-card') as AnyCard;
    card.request = sessionlessRequest();
    await card.updateComplete;
    await answerFirstOption(card);
    await settle(card);
    equal(partText(card, '[part~="server-error"] p'), STRINGS.en.errorNoSubmitter, 'no provider yet');

    const net = recordingFetch();
    defineHostProvider('late-host-two', { endpoint: '/two/api', sessionId: 'sess-two', locale: 'en', fetch: net.fn });
    await answerFirstOption(card);
    await until(() => net.sent.length === 1, 'the POST once the provider is there');
    equal(net.sent[0]!.url, '/two/api/chat/continue', 'endpoint');
    await until(() => partText(card, '[part~="receipt-status"]') === STRINGS.en.receiptAnswered, 'the receipt');
  });

  it('is not reported when a host took the submission with preventDefault()', async () => {
    const take = (e: Event) => e.preventDefault();
    document.addEventListener('ask-user-submit', take);
    try {
      staticMarkup('<ask-user-card no-autofocus locale="en"></ask-user-card>');
      const card = document.querySelector('ask-user-card') as AnyCard;
      card.request = sessionlessRequest();
      await card.updateComplete;
      await answerFirstOption(card);
      await settle(card);
      equal(partText(card, '[part~="server-error"]'), '', 'no error');
      equal(partText(card, '[part~="submit-button"]'), STRINGS.en.submitting, 'waits for the host');
      card.markSubmitted();
      await card.updateComplete;
      equal(partText(card, '[part~="receipt-status"]'), STRINGS.en.receiptAnswered, 'the host confirmed');
    } finally {
      document.removeEventListener('ask-user-submit', take);
    }
  });
});
