/**
 * The context `<ask-user-provider>` gives every `<ask-user-card>` below it. Alone in its module so a
 * host can provide it from its own element without importing the provider.
 */
import { createContext } from '@lit/context';

export interface AskUserContextValue {
  /** Base URL of the plugin's routes; the card posts to `${endpoint}/chat/continue`. @default '/api' */
  endpoint?: string;
  /** Session used when a request carries no `sessionId` of its own. */
  sessionId?: string;
  /** The `fetch` used for submissions (credentials, headers, tests). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Locale tag for the cards (`zh-CN`, `en`, …) unless a card sets its own. */
  locale?: string;
}

export const askUserContext = createContext<AskUserContextValue>(Symbol('ask-user-context'));
