/**
 * Both built bundles on one page, in a given order: the README's static markup parsed first, then one
 * bundle, then the other (a host that loads the ES module while an embedded page already loaded the
 * standalone file, or two copies of the package). The first copy's elements serve the page; loading the
 * second must be harmless, and both copies must name the card context with the same key, so a host
 * providing it through either copy reaches the cards.
 */
import { ContextProvider } from '@lit/context';
import { before, describe, it } from './bdd.js';
import { equal, until } from './expect.js';
import { STRINGS } from '../../../widget/strings.js';
import {
  answerFirstOption,
  partText,
  recordingFetch,
  sessionlessRequest,
  staticMarkup,
  untilSubmitLabel,
  type AnyCard,
} from './late-provider.js';

interface BuiltModule {
  AskUserCard: CustomElementConstructor;
  AskUserProvider: CustomElementConstructor;
  askUserContext: unknown;
}

const load = async (file: string): Promise<BuiltModule> => {
  const url = `/dist/widget/${file}`;
  const head = await fetch(url, { method: 'HEAD' });
  if (!head.ok) throw new Error(`${url} is missing: run \`npx vite build\` before the browser tests.`);
  return (await import(/* @vite-ignore */ url)) as BuiltModule;
};

export function describeTwoBundles(first: string, second: string): void {
  describe(`${first}, then ${second}, on one page`, () => {
    let one: BuiltModule;
    let two: BuiltModule;
    const net = recordingFetch();

    before(async () => {
      staticMarkup(
        '<ask-user-provider endpoint="/bundles/api" session-id="sess-bundles" locale="en"><ask-user-card no-autofocus></ask-user-card></ask-user-provider>',
      );
      Object.assign(document.querySelector('ask-user-provider')!, { fetch: net.fn });
      one = await load(first);
    });

    it(`a card in static markup, upgraded by ${first}, takes the provider's locale and sends through it`, async () => {
      const card = document.querySelector('ask-user-card') as AnyCard;
      card.request = sessionlessRequest();
      await untilSubmitLabel(card, STRINGS.en.submit, "the provider's locale");
      await answerFirstOption(card);
      await until(() => net.sent.length === 1, "one POST through the provider's fetch");
      equal(net.sent[0]!.url, '/bundles/api/chat/continue', 'endpoint');
      equal(net.sent[0]!.body.sessionId, 'sess-bundles', 'session');
    });

    it(`loading ${second} as well throws nothing and leaves the elements ${first} defined`, async () => {
      two = await load(second);
      equal(customElements.get('ask-user-card'), one.AskUserCard, '<ask-user-card>');
      equal(customElements.get('ask-user-provider'), one.AskUserProvider, '<ask-user-provider>');
    });

    it('both copies name the card context with the same key', () => {
      equal(two.askUserContext, one.askUserContext, 'askUserContext');
    });

    it(`a host providing the context with ${second}'s key reaches the cards ${first} defined`, async () => {
      const tag = `bundle-host-${Math.random().toString(36).slice(2, 8)}`;
      const hostNet = recordingFetch();
      const value = { endpoint: '/host/api', sessionId: 'sess-host', locale: 'en', fetch: hostNet.fn };
      customElements.define(
        tag,
        class extends HTMLElement {
          provider = new ContextProvider(this, { context: two.askUserContext as never, initialValue: value as never });
          connectedCallback() {
            this.provider.hostConnected();
          }
        },
      );
      const host = document.createElement(tag);
      const card = document.createElement('ask-user-card') as AnyCard;
      card.setAttribute('no-autofocus', '');
      card.request = sessionlessRequest();
      host.append(card);
      document.body.append(host);
      await untilSubmitLabel(card, STRINGS.en.submit, "the host provider's locale");
      await answerFirstOption(card);
      await until(() => hostNet.sent.length === 1, "one POST through the host's fetch");
      equal(hostNet.sent[0]!.url, '/host/api/chat/continue', 'endpoint');
      equal(partText(card, '[part~="server-error"]'), '', 'no error');
    });
  });
}
