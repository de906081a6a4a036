/**
 * The context `<ask-user-provider>` gives every `<ask-user-card>` below it. Alone in its module so a
 * host can provide it from its own element without importing the provider.
 */
import { ContextRoot, createContext } from '@lit/context';

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

/**
 * A string key, not a `Symbol()`: every copy of the widget on a page (the ES module and the standalone
 * file, or two versions of the package) must name the same context, or a provider from one copy and the
 * cards of another never match. Lit's docs advise a string (or `Symbol.for`) for exactly this.
 */
export const askUserContext = createContext<AskUserContextValue>('ask-user-kit/context');

/**
 * Cards must find their provider whatever the order of definition and insertion. A card asks for the
 * context when it connects; if no provider answers then (the card was upgraded first, as static markup
 * is when <ask-user-card> is defined before <ask-user-provider>, or the provider is a host's element
 * defined or connected later), the request is lost. Lit's answer is a ContextRoot at the top of the
 * document: it keeps the unanswered subscriptions and replays them when a provider connects (every
 * ContextProvider announces itself with a `context-provider` event). One per page, however many copies
 * of the widget load: the first attaches it and marks the document, later copies see the mark.
 */
const ROOT_MARK = Symbol.for('ask-user-kit.context-root');

function attachContextRoot(): void {
  if (typeof document === 'undefined') return;
  const doc = document as Document & { [ROOT_MARK]?: true };
  if (doc[ROOT_MARK]) return;
  doc[ROOT_MARK] = true;
  new ContextRoot().attach(document.documentElement);
}

attachContextRoot();
