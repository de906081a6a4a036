import { LitElement, css, html, type PropertyDeclarations, type TemplateResult } from 'lit';
import { ContextProvider } from '@lit/context';
import { askUserContext } from './context.js';
import { AskUserConnectionEvent, AskUserContinuedEvent } from './events.js';

/**
 * Renders nothing of its own (`display: contents`). A card's own `endpoint`, `sessionId`, `fetch` or
 * `locale` wins over the provider's.
 *
 * @summary Gives every `<ask-user-card>` inside it the endpoint, session, `fetch` and locale, so the
 * cards submit answers by themselves and fire `ask-user-continued` with the continuation stream.
 *
 * @slot - The chat content holding the cards.
 *
 * @event {AskUserConnectionEvent} ask-user-connection - A continuation stream a card under it started is cut off
 *   (`reconnecting`), flows again (`connected`) or cannot be picked up (`gone`); `detail` names the state, session and card.
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

  constructor() {
    super();
    this.addEventListener(AskUserContinuedEvent.eventName, (e) => this._forwardConnection(e));
  }

  protected override willUpdate(): void {
    // A new object each time, so subscribed cards see the change.
    this._provider.setValue({ endpoint: this.endpoint, sessionId: this.sessionId, fetch: this.fetch, locale: this.locale });
  }

  protected override render(): TemplateResult {
    return html`<slot></slot>`;
  }

  /**
   * Passes the connection state of a card's continuation stream on, so a page shows "reconnecting…" without
   * reaching into every stream. The nearest provider does it; one further out leaves it, or it would be said twice.
   */
  private _forwardConnection(e: AskUserContinuedEvent): void {
    const { events, sessionId, requestId } = e.detail;
    if (typeof events?.addEventListener !== 'function' || e.composedPath().find((n) => n instanceof AskUserProvider) !== this) return;
    events.addEventListener('connection', (c) => this.dispatchEvent(new AskUserConnectionEvent({ state: c.state, sessionId, requestId })));
  }
}

// As for <ask-user-card>: a second copy of the widget on the page leaves the first one's element in place.
if (!customElements.get('ask-user-provider')) customElements.define('ask-user-provider', AskUserProvider);

declare global {
  interface HTMLElementTagNameMap {
    'ask-user-provider': AskUserProvider;
  }
}
