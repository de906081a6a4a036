import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { provide } from '@lit/context';
import { askUserContext, type AskUserContextValue } from './context.js';

/**
 * @summary Gives every `<ask-user-card>` inside it the endpoint, session, `fetch` and locale, so the
 * cards submit answers by themselves and fire `ask-user-continued` with the continuation stream.
 *
 * @slot - The chat content holding the cards.
 *
 * Renders nothing of its own (`display: contents`). A card's own `endpoint`, `sessionId`, `fetch` or
 * `locale` wins over the provider's.
 */
@customElement('ask-user-provider')
export class AskUserProvider extends LitElement {
  static override styles = css`
    :host {
      display: contents;
    }
  `;

  /** Base URL of the plugin's routes. */
  @property() endpoint = '/api';

  /** Session for cards whose request carries no `sessionId`. */
  @property({ attribute: 'session-id' }) sessionId?: string;

  /** Locale for the cards: `zh-CN` (default) or `en`. */
  @property() locale?: string;

  /** `fetch` for submissions, e.g. one adding credentials. A property only. */
  @property({ attribute: false }) fetch?: typeof fetch;

  @provide({ context: askUserContext })
  private _context: AskUserContextValue = { endpoint: '/api' };

  protected override willUpdate(): void {
    // A new object each time, so subscribed cards see the change.
    this._context = { endpoint: this.endpoint, sessionId: this.sessionId, fetch: this.fetch, locale: this.locale };
  }

  protected override render() {
    return html`<slot></slot>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'ask-user-provider': AskUserProvider;
  }
}
