/**
 * The demo page's service worker (contract §13, Web Push), built to `/sw.js` (scope `/`). A push carries
 * `{ title, requestId, kind, url }`; its notification shows the title and nothing else. A click focuses a
 * tab of the chat page and tells it which card (the page shows it, or goes to `url`), else opens `url`:
 * the card's answer link, or the page at the session and card (`/?session=…&card=…`).
 *
 * Written without the webworker lib (the project's one TypeScript program has the DOM's): the few shapes
 * it uses are declared below.
 */
export {};

/** The message a tab of the page gets when a notification of one of its cards is clicked. */
const CLICK_MESSAGE = 'ask-user-kit.notification-click';

interface WaitableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushLikeEvent extends WaitableEvent {
  readonly data: { json(): unknown } | null;
}
interface NotificationClickLikeEvent extends WaitableEvent {
  readonly notification: Notification;
}
interface PageClient {
  readonly url: string;
  readonly focused: boolean;
  postMessage(message: unknown): void;
  focus(): Promise<PageClient>;
}
interface WorkerScope {
  readonly location: Location;
  readonly registration: ServiceWorkerRegistration;
  readonly clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly PageClient[]>;
    openWindow(url: string): Promise<PageClient | null>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: WaitableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushLikeEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationClickLikeEvent) => void): void;
}

/** What a notification keeps for its click. */
interface CardRef {
  requestId: string;
  url: string;
}

const sw = self as unknown as WorkerScope;

sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()));
// A page open before the worker existed gets its clicks too.
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

sw.addEventListener('push', (event) => {
  const payload = payloadOf(event.data);
  if (!payload) return;
  const card: CardRef = { requestId: payload.requestId, url: payload.url };
  // The title alone: the question, its options and the session stay on the page.
  event.waitUntil(sw.registration.showNotification(payload.title, { tag: payload.requestId, data: card }));
});

sw.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openCard(event.notification.data as CardRef | null));
});

function payloadOf(data: PushLikeEvent['data']): { title: string; requestId: string; url: string } | undefined {
  try {
    const value = data?.json() as { title?: unknown; requestId?: unknown; url?: unknown } | undefined;
    if (typeof value?.title !== 'string' || typeof value.requestId !== 'string') return undefined;
    return { title: value.title, requestId: value.requestId, url: typeof value.url === 'string' ? value.url : '/' };
  } catch {
    return undefined;
  }
}

/** A tab of the chat page (not an answer link's page) is told and focused; without one, `url` opens. */
async function openCard(card: CardRef | null): Promise<void> {
  const url = new URL(card?.url ?? '/', sw.location.origin).href;
  const tabs = (await sw.clients.matchAll({ type: 'window', includeUncontrolled: true })).filter((tab) => {
    const at = new URL(tab.url);
    return at.origin === sw.location.origin && at.pathname === '/';
  });
  const tab = tabs.find((t) => t.focused) ?? tabs[0];
  if (!tab) {
    await sw.clients.openWindow(url);
    return;
  }
  // Told first: the page acts on it whether or not the browser lets the worker focus it.
  tab.postMessage({ type: CLICK_MESSAGE, requestId: card?.requestId, url });
  await tab.focus();
}
