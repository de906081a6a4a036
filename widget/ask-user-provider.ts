import { LitElement, css, html, type PropertyDeclarations, type TemplateResult } from 'lit';
import { ContextProvider } from '@lit/context';
import { askUserContext } from './context.js';

/**
 * Renders nothing of its own (`display: contents`). A card's own `endpoint`, `sessionId`, `fetch` or
 * `locale` wins over the provider's.
 *
 * @summary Gives every `<ask-user-card>` inside it the endpoint, session, `fetch` and locale, so the
 * cards submit answers by themselves and fire `ask-user-continued` with the continuation stream.
 *
 * @slot - The chat content holding the cards.
 */
export class AskUserProvider extends LitElement {
  static override styles = css`
    :host {
      display: contents;
    }
  `;

  // Declared here rather than with decorators, as in <ask-user-card>: no decorator runtime in the bundles.
  static override properties: PropertyDeclarations = {
    endpoint: {},
    sessionId: { attribute: 'session-id' },
    locale: {},
    fetch: { attribute: false },
  };

  /** Base URL of the plugin's routes. */
  endpoint = '/api';

  /** Session for cards whose request carries no `sessionId`. */
  declare sessionId?: string;

  /** Locale for the cards: `zh-CN` (default) or `en`. */
  declare locale?: string;

  /** `fetch` for submissions, e.g. one adding credentials. A property only. */
  declare fetch?: typeof fetch;

  private _provider = new ContextProvider(this, { context: askUserContext, initialValue: { endpoint: '/api' } });

  protected override willUpdate(): void {
    // A new object each time, so subscribed cards see the change.
    this._provider.setValue({ endpoint: this.endpoint, sessionId: this.sessionId, fetch: this.fetch, locale: this.locale });
  }

  protected override render(): TemplateResult {
    return html`<slot></slot>`;
  }
}

// As for <ask-user-card>: a second copy of the widget on the page leaves the first one's element in place.
if (!customElements.get('ask-user-provider')) customElements.define('ask-user-provider', AskUserProvider);

declare global {
  interface HTMLElementTagNameMap {
    'ask-user-provider': AskUserProvider;
  }
}
