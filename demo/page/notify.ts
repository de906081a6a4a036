/**
 * The page's "notify me" switch (contract §13, Web Push). Turned on, it asks for notification permission
 * (only then: the browser shows its prompt for that click), registers the page's service worker
 * (`/sw.js`), subscribes with the server's VAPID key and posts the subscription for the session shown;
 * turned off, it deletes it and unsubscribes the browser. The choice is kept in localStorage: a page
 * opened with it on, or switched to another session, posts the browser's subscription for that session
 * without asking anything again.
 */
const NOTIFY_KEY = 'ask-user-demo.notify';
const SW_URL = '/sw.js';
/** What the service worker posts to a tab of the page when a notification is clicked (page/sw.ts). */
export const CLICK_MESSAGE = 'ask-user-kit.notification-click';

export type NotifyState = 'on' | 'off' | 'denied';

/** Web Push needs a secure context (https, or localhost), a service worker and the Push API. */
export const pushSupported = (): boolean =>
  window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** The switch was left on in this browser. */
export const notifyWanted = (): boolean => localStorage.getItem(NOTIFY_KEY) === '1';

const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
};

const sameBytes = (a: ArrayBuffer | null | undefined, b: Uint8Array): boolean => {
  if (!a || a.byteLength !== b.byteLength) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
};

async function failure(res: Response): Promise<Error> {
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  return new Error(body?.error?.message ?? `HTTP ${res.status}`);
}

/** The browser's subscription for the server's current key: kept when it has that key, else made anew. */
async function subscriptionOf(registration: ServiceWorkerRegistration): Promise<PushSubscription> {
  const res = await fetch('/api/push/vapid-public-key');
  if (!res.ok) throw await failure(res);
  const key = fromBase64url(((await res.json()) as { publicKey: string }).publicKey);
  const held = await registration.pushManager.getSubscription();
  if (held && sameBytes(held.options.applicationServerKey, key)) return held;
  // New server keys void the old subscription (§13): the push service would refuse what they sign.
  await held?.unsubscribe().catch(() => false);
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
}

async function send(method: 'POST' | 'DELETE', body: object): Promise<void> {
  const res = await fetch('/api/push/subscriptions', {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
  await res.body?.cancel();
}

async function subscribeSession(sessionId: string): Promise<void> {
  const registration = await navigator.serviceWorker.register(SW_URL, { scope: '/' });
  await navigator.serviceWorker.ready;
  const subscription = await subscriptionOf(registration);
  await send('POST', { sessionId, subscription: subscription.toJSON() });
}

/** The switch turned on, from its click: permission first, while the click still counts as the user's. */
export async function turnOn(sessionId: string): Promise<NotifyState> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') return 'denied';
  await subscribeSession(sessionId);
  localStorage.setItem(NOTIFY_KEY, '1');
  return 'on';
}

/** The switch turned off: the session's subscription deleted on the server, the browser's unsubscribed. */
export async function turnOff(sessionId: string): Promise<NotifyState> {
  localStorage.removeItem(NOTIFY_KEY);
  const registration = await navigator.serviceWorker.getRegistration(SW_URL);
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return 'off';
  await send('DELETE', { sessionId, endpoint: subscription.endpoint });
  await subscription.unsubscribe();
  return 'off';
}

/**
 * At load and when the page shows another session: with the switch left on and permission still given,
 * the browser's subscription is posted for `sessionId` (a refresh when it is known). Never asks.
 */
export async function keepOn(sessionId: string): Promise<NotifyState> {
  if (!notifyWanted()) return 'off';
  if (Notification.permission !== 'granted') {
    localStorage.removeItem(NOTIFY_KEY);
    return Notification.permission === 'denied' ? 'denied' : 'off';
  }
  await subscribeSession(sessionId);
  return 'on';
}
