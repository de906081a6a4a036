/**
 * `ask-user-kit/react`: the card and its provider as React components, made with the Lit team's
 * `@lit/react`, so props are set as element properties (objects such as `request` included) and the
 * card's events arrive on typed callbacks (`onAskUserSubmit`, …). Importing it also types the plain tags
 * (`<ask-user-card>`, `<ask-user-provider>`) in React 19's JSX, for pages that use the elements directly.
 *
 * It imports the elements from `ask-user-kit/widget`, so a page that also imports the widget has one copy.
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import {
  AskUserCard as AskUserCardElement,
  AskUserConnectionEvent,
  AskUserContinuedEvent,
  AskUserErrorEvent,
  AskUserExpiredEvent,
  AskUserProvider as AskUserProviderElement,
  AskUserSubmitEvent,
} from 'ask-user-kit/widget';

/** `<ask-user-card>`: `request`, `locale`, `endpoint`, `sessionId`, `receipt`, … as props; its events as typed callbacks. */
export const AskUserCard = createComponent({
  tagName: 'ask-user-card',
  elementClass: AskUserCardElement,
  react: React,
  events: {
    onAskUserSubmit: AskUserSubmitEvent.eventName as EventName<AskUserSubmitEvent>,
    onAskUserContinued: AskUserContinuedEvent.eventName as EventName<AskUserContinuedEvent>,
    onAskUserError: AskUserErrorEvent.eventName as EventName<AskUserErrorEvent>,
    onAskUserExpired: AskUserExpiredEvent.eventName as EventName<AskUserExpiredEvent>,
  },
  displayName: 'AskUserCard',
});

/** `<ask-user-provider>`: `endpoint`, `sessionId`, `locale`, … for the cards inside it; `onAskUserConnection` for their streams. */
export const AskUserProvider = createComponent({
  tagName: 'ask-user-provider',
  elementClass: AskUserProviderElement,
  react: React,
  events: {
    onAskUserConnection: AskUserConnectionEvent.eventName as EventName<AskUserConnectionEvent>,
  },
  displayName: 'AskUserProvider',
});

/** What a plain tag takes in JSX: the element's own properties, and React's HTML attributes. */
type ElementProps<E extends HTMLElement> = React.DetailedHTMLProps<React.HTMLAttributes<E>, E> &
  Partial<Omit<E, keyof HTMLElement | 'render' | 'connectedCallback' | 'disconnectedCallback'>> & {
    /** React 19 sets it as a property, as it does every prop of a custom element that has one. */
    class?: string;
  };

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'ask-user-card': ElementProps<AskUserCardElement>;
      'ask-user-provider': ElementProps<AskUserProviderElement>;
    }
  }
}
