/**
 * Contract §13, Web Push, in Chromium with the demo's "notify me" switch and service worker.
 *
 * What is real and what stands in, exactly:
 * - Real: the page's switch, `Notification.requestPermission()` (granted by the test through the DevTools
 *   protocol, as a user's "Allow"), the service worker's registration, the demo's routes and store, the
 *   kit's notifier encrypting (aes128gcm) and signing (VAPID) a message and POSTing it over HTTPS to the
 *   subscription's endpoint, the worker's `push` handler showing the notification, and its
 *   `notificationclick` handler.
 * - Stand-ins: `PushManager.subscribe` cannot work offline (in a Playwright context Chromium answers
 *   "Registration failed - permission denied"; in a profile of its own it never resolves, its push service
 *   being out of reach), so the test replaces it in the page with one that returns a subscription to the
 *   test's push service on loopback, with keys the test holds; the page's own code calls it with the
 *   server's VAPID key and posts what it returns. The push service is the test's: it decrypts the message
 *   with those keys and hands the plaintext to Chromium with `ServiceWorker.deliverPushMessage`, as a
 *   browser's push service would hand it over decrypted (once more, noted in the evidence, if the worker's
 *   push event never fired: a push service re-delivers what the browser did not acknowledge).
 * - The click: no OS notification can be clicked headless, and the DevTools protocol has no command for
 *   it. The test dispatches a `notificationclick` event, built around the real notification, into the
 *   worker, so the worker's own listener runs. The browser lets a worker focus or open a window only
 *   during a click it dispatched itself, so `focus()` and `openWindow()` are refused here ("Not allowed
 *   to …"): the test checks the listener called them, that the tab it told shows the card, and opens the
 *   URL it gave `openWindow` to see the card there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { runCase } from '../helpers/acceptance-case.js';
import { SEL } from '../helpers/demo-page.js';
import { chatStream } from '../helpers/streams.js';
import { axeViolations } from '../helpers/axe.js';
import { ANSWER_LINK, CARD_TITLE, logsOf, notifyDemo, tokenOf } from '../helpers/notify-demo.js';
import { TestBrowser, verifyVapid } from '../../plugin/notify/push-test-service.js';

/** In every page of the context, before its scripts: counts permission requests, and stands in for PushManager.subscribe. */
function pushStandIn(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }) {
  const w = window as unknown as { __push: { permissionRequests: number; subscribeKeys: string[]; real: string | null } };
  w.__push = { permissionRequests: 0, subscribeKeys: [], real: null };
  const request = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args: Parameters<typeof Notification.requestPermission>) => {
    w.__push.permissionRequests += 1;
    return request(...args);
  };
  const real = PushManager.prototype.subscribe;
  const fromB64 = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0));
  const toB64 = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  let held: PushSubscription | null = null;
  PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
    // What the real one does first: its answer offline is kept for the evidence.
    w.__push.real ??= await Promise.race([
      real.call(this, options).then(
        () => 'subscribed',
        (e: Error) => `${e.name}: ${e.message}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 3 s'), 3000)),
    ]);
    const key = options?.applicationServerKey;
    const bytes =
      typeof key === 'string' ? fromB64(key) : new Uint8Array(key instanceof ArrayBuffer ? key : (key as ArrayBufferView).buffer);
    w.__push.subscribeKeys.push(toB64(bytes));
    const json = { endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys };
    held = {
      endpoint: json.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: bytes.slice().buffer },
      toJSON: () => json,
      getKey: () => null,
      unsubscribe: async () => ((held = null), true),
    } as unknown as PushSubscription;
    return held;
  };
  PushManager.prototype.getSubscription = async () => held;
}

/** The demo's service worker in `context`, once it runs. */
async function demoWorker(context: BrowserContext): Promise<Worker> {
  const found = context.serviceWorkers().find((w) => w.url().endsWith('/sw.js'));
  return found ?? context.waitForEvent('serviceworker', { predicate: (w) => w.url().endsWith('/sw.js'), timeout: 10_000 });
}

/**
 * The worker's own `notificationclick` listener, run on its first notification by an event the test
 * dispatches (`waitUntil` kept, so its work is awaited); `openWindow` is watched for the URL it is given.
 * Plain JavaScript: it runs in the worker as written.
 */
const CLICK_FIRST_NOTIFICATION = `(async () => {
  const [notification] = await self.registration.getNotifications();
  if (!notification) return { outcome: 'no notification', opened: [], left: 0 };
  const opened = [];
  const openWindow = self.clients.openWindow;
  self.clients.openWindow = function (url) {
    opened.push(url);
    return openWindow.call(self.clients, url);
  };
  const event = new NotificationEvent('notificationclick', { notification });
  let work = Promise.resolve();
  Object.defineProperty(event, 'waitUntil', { value: function (p) { work = p; } });
  self.dispatchEvent(event);
  const outcome = await work.then(
    function () { return 'fulfilled'; },
    function (e) { return 'rejected: ' + e.name + ': ' + e.message; },
  );
  delete self.clients.openWindow;
  return { outcome, opened, left: (await self.registration.getNotifications()).length };
})()`;

const clickFirstNotification = (worker: Worker) =>
  worker.evaluate(CLICK_FIRST_NOTIFICATION) as Promise<{ outcome: string; opened: string[]; left: number }>;

const notificationsOf = (page: Page) =>
  page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/sw.js');
    return (await registration!.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      icon: n.icon,
      data: n.data as unknown,
    }));
  });

const inView = (page: Page, requestId: string) =>
  page.locator(`li:has(> ask-user-card[data-request-id="${requestId}"])`).evaluate((li) => {
    const r = li.getBoundingClientRect();
    return { current: li.getAttribute('aria-current'), visible: r.bottom > 0 && r.top < innerHeight };
  });

test('notifications — Web Push: the switch asks for permission only on its click and stores the subscription; a card left open is pushed encrypted; in Chromium the worker shows its title, and its click brings a page to the card', async () => {
  const { shared, push } = await notifyDemo();
  const firstLine = shared.server.output.length;
  await runCase('notify-push', { shared }, async (c) => {
    const keys = new TestBrowser();
    const subscription = keys.subscription(`${push.origin}/push/${randomBytes(12).toString('base64url')}`);
    const { chat, tap, context } = await c.openPage();
    await context.grantPermissions(['notifications'], { origin: c.server.url });
    // tsx compiles with keepNames, so the serialized function may call esbuild's `__name`: give it one.
    await context.addInitScript({
      content: `(() => { const __name = (f) => f; (${pushStandIn.toString()})(${JSON.stringify(subscription)}); })();`,
    });
    await chat.open();
    const page = chat.page;
    const toggle = page.locator('[data-testid="notify-toggle"]');

    // Nothing asked, registered or sent before the click.
    await toggle.waitFor({ state: 'visible' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    assert.equal(await page.evaluate(() => (window as any).__push.permissionRequests), 0, 'permission asked before the click');
    assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
    assert.equal(tap.on('/api/push/subscriptions').length, 0);
    assert.deepEqual(await axeViolations(page), [], 'axe on the page with the notify switch (off)');

    await toggle.click();
    await page.locator('[data-testid="notify-toggle"][aria-checked="true"]').waitFor();
    const probe = await page.evaluate(() => (window as any).__push);
    c.note('pushProbe', probe);
    assert.equal(probe.permissionRequests, 1, 'permission is asked once, on the click');
    const { publicKey } = (await (await fetch(`${c.server.url}/api/push/vapid-public-key`)).json()) as { publicKey: string };
    assert.deepEqual(probe.subscribeKeys, [publicKey], 'the page subscribes with the server’s VAPID key');
    const posted = await tap.waitFor('/api/push/subscriptions', (x) => x.method === 'POST' && x.status !== undefined);
    const sessionId = await page.locator('[data-testid="session-id"]').innerText();
    assert.deepEqual(JSON.parse(posted.requestBody!), { sessionId, subscription });
    assert.equal(posted.status, 201, 'a new subscription');
    assert.match(await page.locator('[data-testid="notify-status"]').innerText(), /已开启通知/);
    assert.deepEqual(await axeViolations(page), [], 'axe on the page with the notify switch (on)');
    await c.evidence.screenshot(page, 'notify-on');

    // A reload finds it on and posts the browser's subscription again: the server knows it (200, not 201).
    await chat.reload();
    await page.locator('[data-testid="notify-toggle"][aria-checked="true"]').waitFor();
    const again = await tap.waitFor('/api/push/subscriptions', (x) => x.method === 'POST' && x.status !== undefined && x !== posted);
    assert.equal(again.status, 200, 'the stored subscription is refreshed');
    assert.equal(await page.evaluate(() => (window as any).__push.permissionRequests), 0, 'the reload asked for permission');

    // A card left open: the push service gets one encrypted, signed message for the subscription.
    await chat.send('你好，帮我看看这个仓库');
    await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required')!.data;
    await push.count(1, 15_000);
    const message = push.received.at(-1)!;
    assert.equal(push.received.length, 1, 'one message');
    assert.equal(`${push.origin}${message.path}`, subscription.endpoint);
    assert.equal(message.headers['content-encoding'], 'aes128gcm');
    assert.equal(message.headers.urgency, 'high');
    const ttl = Number(message.headers.ttl);
    assert.ok(ttl > 0 && ttl <= 86_400, `TTL ${ttl}`);
    const claims = verifyVapid(message.headers.authorization as string, publicKey);
    assert.equal(claims.aud, push.origin, 'the JWT is for the push service’s origin');
    const plaintext = keys.decrypt(message.body);
    const payload = JSON.parse(plaintext) as { title: string; requestId: string; kind: string; url: string };
    c.note('pushPayload', payload);
    assert.deepEqual(Object.keys(payload).sort(), ['kind', 'requestId', 'title', 'url'], 'the payload holds §13’s four fields only');
    assert.deepEqual([payload.title, payload.requestId, payload.kind], [asked.title, asked.id, 'question']);
    assert.match(payload.url, ANSWER_LINK, 'with answer links on, the click goes to the card’s link');

    // Chromium's side: the decrypted message handed to the worker as its push service would.
    const cdp = await context.newCDPSession(page);
    const registrations: Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }> = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
    // What the worker went through and said, for the evidence.
    const workerLog: unknown[] = [];
    cdp.on('ServiceWorker.workerVersionUpdated', (e) =>
      workerLog.push(...e.versions.map((v) => ({ at: Date.now(), version: v.versionId, running: v.runningStatus, status: v.status }))),
    );
    cdp.on('ServiceWorker.workerErrorReported', (e) => workerLog.push({ at: Date.now(), error: e.errorMessage }));
    context.on('console', (m) => workerLog.push({ at: Date.now(), console: m.type(), text: m.text(), url: m.location().url }));
    await cdp.send('ServiceWorker.enable');
    for (let i = 0; i < 50 && !registrations.some((r) => r.scopeURL === `${c.server.url}/` && !r.isDeleted); i++)
      await new Promise((r) => setTimeout(r, 100));
    const registration = registrations.find((r) => r.scopeURL === `${c.server.url}/` && !r.isDeleted);
    assert.ok(registration, 'the demo’s service worker is registered at /');
    // The worker's push events are counted beside its own listener, so a message the worker never saw is
    // told apart from one it saw and showed nothing for.
    const worker = await demoWorker(context);
    const deliver = async () => {
      const pushes = () => worker.evaluate('self.__pushEvents.length') as Promise<number>;
      await worker.evaluate(
        "if (!self.__pushEvents) { self.__pushEvents = []; self.addEventListener('push', () => self.__pushEvents.push(Date.now())); } self.__pushEvents.length = 0",
      );
      for (let attempt = 1; ; attempt++) {
        await cdp.send('ServiceWorker.deliverPushMessage', {
          origin: c.server.url,
          registrationId: registration.registrationId,
          data: plaintext,
        });
        workerLog.push({ at: Date.now(), delivered: registration.registrationId, attempt });
        let shown = await notificationsOf(page);
        for (let i = 0; i < 50 && shown.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 100));
          shown = await notificationsOf(page);
        }
        const seen = await pushes();
        // The DevTools command stands in for the push service, which hands a message over again until the
        // browser acknowledges it (RFC 8030 §6.2): once more when the worker never got it.
        if (shown.length > 0 || seen > 0 || attempt === 2) return { shown, seen, attempt };
      }
    };
    const first = await deliver();
    c.note('firstDelivery', first);
    c.note('workerLog', workerLog);
    assert.ok(first.seen > 0, 'the worker got no push event from ServiceWorker.deliverPushMessage, twice');
    const shown = first.shown;
    assert.deepEqual(
      shown,
      [{ title: asked.title, body: '', tag: asked.id, icon: '', data: { requestId: asked.id, url: payload.url } }],
      'one notification: the card’s title and nothing else shown',
    );

    // The click with a tab of the page open at the card: the worker tells the tab, which shows the card.
    await page.locator('#log').evaluate((log) => log.scrollTo(0, 0));
    const withTab = await clickFirstNotification(worker);
    c.note('clickWithTab', withTab);
    assert.equal(withTab.outcome, 'rejected: InvalidAccessError: Not allowed to focus a window.', 'the listener focuses the tab');
    assert.deepEqual(withTab.opened, [], 'no window opened while a tab is open');
    assert.equal(withTab.left, 0, 'the notification is closed');
    await page.locator(`li[aria-current="true"] > ask-user-card[data-request-id="${asked.id}"]`).waitFor();
    assert.deepEqual(await inView(page, asked.id), { current: 'true', visible: true });

    // The click with no tab of the page: the worker opens the notification's URL, which shows the card.
    const second = await deliver();
    c.note('secondDelivery', second);
    assert.equal(second.shown.length, 1, 'the second push shows its notification');
    const blank = await context.newPage();
    await page.close();
    const noTab = await clickFirstNotification(worker);
    c.note('clickWithoutTab', noTab);
    assert.equal(noTab.outcome, 'rejected: InvalidAccessError: Not allowed to open a window.');
    assert.deepEqual(noTab.opened, [payload.url], 'the worker opens the notification’s URL');
    await blank.goto(noTab.opened[0]!);
    await blank.locator('ask-user-card [part~="form"]').waitFor();
    assert.equal((await blank.locator(CARD_TITLE).first().innerText()).trim(), asked.title);
    await c.evidence.screenshot(blank, 'opened-by-click');

    // Without answer links the URL is the page at the session and card (the demo's urlOf): it shows the card.
    const atCard = await context.newPage();
    await atCard.goto(`${c.server.url}/?session=${encodeURIComponent(asked.sessionId)}&card=${encodeURIComponent(asked.id)}`);
    await atCard.waitForSelector('body[data-ready="true"]');
    await atCard.locator(`li[aria-current="true"] > ask-user-card[data-request-id="${asked.id}"]`).waitFor();
    assert.deepEqual(await inView(atCard, asked.id), { current: 'true', visible: true });

    // Off: the session's subscription is deleted on the server.
    await atCard.locator('[data-testid="notify-toggle"][aria-checked="true"]').waitFor();
    await atCard.locator('[data-testid="notify-toggle"]').click();
    await atCard.locator('[data-testid="notify-toggle"][aria-checked="false"]').waitFor();
    const deleted = await tap.waitFor('/api/push/subscriptions', (x) => x.method === 'DELETE' && x.end !== undefined);
    assert.deepEqual(JSON.parse(deleted.requestBody!), { sessionId: asked.sessionId, endpoint: subscription.endpoint });
    assert.equal(deleted.status, 200);
    assert.equal(tap.body(deleted).toString(), '{"removed":true}');
    // Gone: deleting it again removes nothing.
    const again2 = await atCard.evaluate(
      async ([sessionId, endpoint]) => {
        const res = await fetch('/api/push/subscriptions', {
          method: 'DELETE',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sessionId, endpoint }),
        });
        return res.json();
      },
      [asked.sessionId, subscription.endpoint] as const,
    );
    assert.deepEqual(again2, { removed: false });

    await atCard.locator(SEL.runStatus, { hasText: 'paused' }).waitFor();
    const logs = await logsOf(shared, firstLine, [asked.sessionId]);
    assert.ok(!logs.includes(tokenOf(payload.url)), 'the pushed link’s token is in the demo’s output or trace');
    assert.ok(!logs.includes(subscription.keys.auth), 'the subscription’s secret is in the demo’s output or trace');
  });
});
