/**
 * The Web Push notifier (contract §13): a card that waits is pushed to every browser its session
 * subscribed, as an RFC 8291 `aes128gcm` message signed with the kit's VAPID key (RFC 8292). The
 * `web-push` library signs and encrypts; the request itself is made here, so it can be aborted when the
 * kit closes, bounded in time as a whole, and connected only to addresses the endpoint guard accepts.
 *
 * The message is `{ title, requestId, kind, url }` and nothing else of the session: `url` is the card's
 * answer link when there is one, else `urlOf(notification)`, else `/`. Its `TTL` is the card's remaining
 * life (at most `ttlSeconds`), its `Urgency` high, and its `Topic` one per card, so a retried message
 * replaces one still queued. A 2xx ends it; a 404 or 410 (the browser unsubscribed) forgets that
 * subscription; a timeout, a network error, a 408, a 429 or a 5xx is retried after about 1 s, 5 s, 30 s and
 * 2 min, or after the push service's `Retry-After` when it asks for longer (up to 5 min), never once the card
 * has closed; any other 4xx ends it. Every subscription that was not reached
 * is named in the error `notify` throws (by its status, never its endpoint), which the kit logs.
 */
import { createHash } from 'node:crypto';
import type { Agent, AgentOptions } from 'node:https';
import webpush from 'web-push';
import type { PendingStore } from '../../store/types.js';
import type { Notification, Notifier, NotifyContext } from '../notifier.js';
import { EndpointGuard, EndpointRefusedError, type ResolveAll } from './endpoint-guard.js';
import {
  checkSubscriptionOptions,
  PushSubscriptions,
  type PushSubscriptionJson,
  type PushSubscriptionsOptions,
} from './push-subscriptions.js';
import { VapidKeys, type VapidDetails, type VapidOptions } from './vapid-keys.js';
import { abortableSleep } from '../abortable-sleep.js';
import { postStatus, retryWaitMs, type PostReply } from '../post-status.js';

export interface WebPushNotifierOptions {
  /** The VAPID keys and contact; without keys they are generated once and kept in the store. @default {} */
  vapid?: VapidOptions;
  /** Let endpoints resolve to loopback and private addresses (tests, a push service on your own network). @default false */
  allowPrivateEndpoints?: boolean;
  /** The longest a push service keeps an undelivered message; never past the card's expiry. @default 86400 */
  ttlSeconds?: number;
  /** Waits before the 2nd, 3rd, … attempt. @default [1000, 5000, 30000, 120000] */
  retryDelaysMs?: readonly number[];
  /** One attempt's limit, connection to response, before it counts as a timeout. @default 10000 */
  timeoutMs?: number;
  /** The page a click opens when the card has no answer link (e.g. the chat at the session). @default '/' */
  urlOf?: (notification: Notification) => string | undefined;
  /** How long a subscription is kept, and how many per session (push-subscriptions.ts). */
  subscriptions?: PushSubscriptionsOptions;
  /** Names it among the kit's notifiers. @default 'web-push' */
  name?: string;
  /**
   * Options of the https agent the pushes go through, e.g. `{ ca }` to trust a test push service. Its
   * `lookup` is always the guard's, so every address a connection uses is checked. @default {}
   */
  agentOptions?: AgentOptions;
  /** For tests: how endpoint hosts resolve, and the wait between attempts. */
  resolve?: ResolveAll;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** What the page's service worker receives, decrypted. */
export interface WebPushPayload {
  title: string;
  requestId: string;
  kind: Notification['kind'];
  /** Where a click goes: the card's answer link, or the page at the card. */
  url: string;
}

const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000] as const;
const DEFAULT_TTL_SECONDS = 24 * 60 * 60;
/** The plaintext that fits one 4096-byte aes128gcm record (RFC 8291 §4): 4096 - 86 header - 16 tag - 1 pad. */
const MAX_PLAINTEXT_BYTES = 3993;

/** The statuses a retry may fix: the push service was slow, busy or failing. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;
/** The subscription is gone for good (RFC 8030 §7.3): the browser unsubscribed, or it expired. */
const gone = (status: number) => status === 404 || status === 410;

/** How one subscription's delivery ended; `failed` names why, never the endpoint. */
type Outcome = { kind: 'delivered' } | { kind: 'gone' } | { kind: 'closed' } | { kind: 'failed'; why: string };
type Attempt = Outcome | { kind: 'retry'; why: string; reply?: PostReply };

export function webPushNotifier(options: WebPushNotifierOptions = {}): WebPushNotifier {
  return new WebPushNotifier(options);
}

export class WebPushNotifier implements Notifier {
  readonly name: string;
  /** The endpoint rule, which the subscribe route applies too. */
  readonly guard: EndpointGuard;
  readonly vapid: VapidKeys;
  readonly #subscriptionOptions: PushSubscriptionsOptions;
  readonly #ttlSeconds: number;
  readonly #delays: readonly number[];
  readonly #timeoutMs: number;
  readonly #urlOf: WebPushNotifierOptions['urlOf'];
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #agentOptions: AgentOptions;
  #agent: Agent | undefined;

  constructor(options: WebPushNotifierOptions = {}) {
    const { ttlSeconds = DEFAULT_TTL_SECONDS, timeoutMs = 10_000 } = options;
    if (!(Number.isInteger(ttlSeconds) && ttlSeconds > 0))
      throw new TypeError(`webPushNotifier: ttlSeconds must be a positive integer, got ${ttlSeconds}`);
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
      throw new TypeError(`webPushNotifier: timeoutMs must be positive, got ${timeoutMs}`);
    this.name = options.name ?? 'web-push';
    this.guard = new EndpointGuard({
      allowPrivateEndpoints: options.allowPrivateEndpoints ?? false,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
    this.vapid = new VapidKeys(options.vapid);
    // Checked now, so a bad option fails at startup rather than at the first subscribe.
    this.#subscriptionOptions = checkSubscriptionOptions(options.subscriptions ?? {});
    this.#ttlSeconds = ttlSeconds;
    this.#delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.#timeoutMs = timeoutMs;
    this.#urlOf = options.urlOf;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#agentOptions = options.agentOptions ?? {};
  }

  /** The session's subscriptions in `store`, with this notifier's lifetime and limit. */
  subscriptionsOf(store: PendingStore): PushSubscriptions {
    return new PushSubscriptions(store, this.#subscriptionOptions);
  }

  /** The page's `applicationServerKey` (generated and kept in `store` on first use when not given). */
  publicKey(store: PendingStore): Promise<string> {
    return this.vapid.publicKey(store);
  }

  /** Keep a browser's subscription for the session once its endpoint passes the guard (else EndpointRefusedError). */
  async subscribe(store: PendingStore, sessionId: string, subscription: PushSubscriptionJson): Promise<'created' | 'updated'> {
    await this.guard.check(subscription.endpoint);
    return this.subscriptionsOf(store).add(sessionId, subscription);
  }

  /** Forget the session's subscription with this endpoint; false when there was none. */
  unsubscribe(store: PendingStore, sessionId: string, endpoint: string): Promise<boolean> {
    return this.subscriptionsOf(store).remove(sessionId, endpoint);
  }

  async notify(notification: Notification, ctx: NotifyContext): Promise<void> {
    const subscriptions = this.subscriptionsOf(ctx.store);
    const targets = await subscriptions.list(notification.sessionId);
    if (targets.length === 0) return;
    const vapid = await this.vapid.details(ctx.store);
    const payload = this.payloadOf(notification);
    const outcomes = await Promise.all(
      targets.map(async (target) => {
        const outcome = await this.#deliver(target, payload, vapid, notification, ctx);
        if (outcome.kind !== 'gone') return outcome;
        try {
          await subscriptions.remove(notification.sessionId, target.endpoint);
          return outcome;
        } catch {
          return { kind: 'failed', why: 'gone, but could not be forgotten (store unavailable)' } as const;
        }
      }),
    );
    const failed = outcomes.flatMap((o) => (o.kind === 'failed' ? [o.why] : []));
    if (failed.length > 0) throw new Error(`${failed.length} of ${targets.length} subscriptions not reached: ${failed.join('; ')}`);
  }

  /** The message a browser decrypts: the card's title and where a click goes, nothing else of the session. */
  payloadOf(notification: Notification): string {
    const url = notification.answerUrl ?? this.#urlOf?.(notification) ?? '/';
    const message = (payload: WebPushPayload) => JSON.stringify(payload);
    const full = message({ title: notification.title, requestId: notification.requestId, kind: notification.kind, url });
    // Titles are short and links bounded, but a host's `urlOf` is not: the page at `/` still finds the card.
    if (Buffer.byteLength(full) <= MAX_PLAINTEXT_BYTES) return full;
    return message({ title: notification.title, requestId: notification.requestId, kind: notification.kind, url: '/' });
  }

  /** Every attempt for one subscription, until one ends it, the card closes, or the attempts run out. */
  async #deliver(
    target: PushSubscriptionJson,
    payload: string,
    vapid: VapidDetails,
    notification: Notification,
    ctx: NotifyContext,
  ): Promise<Outcome> {
    let body: Buffer;
    try {
      // Encrypted once: every retry carries the same message.
      body = webpush.encrypt(target.keys.p256dh, target.keys.auth, payload, 'aes128gcm').cipherText;
    } catch {
      return { kind: 'failed', why: 'its keys could not encrypt' };
    }
    const topic = createHash('sha256').update(notification.requestId).digest('base64url').slice(0, 32);
    let last = '';
    let reply: PostReply | undefined;
    for (let attempt = 0; attempt <= this.#delays.length; attempt++) {
      if (attempt > 0) {
        await this.#sleep(retryWaitMs(this.#delays[attempt - 1]!, reply), ctx.signal);
        if (ctx.signal.aborted || !(await ctx.isOpen())) return { kind: 'closed' };
      }
      const ttl = Math.min(this.#ttlSeconds, Math.floor((Date.parse(notification.expiresAt) - Date.now()) / 1000));
      if (ttl <= 0) return { kind: 'closed' };
      const outcome = await this.#attempt(target.endpoint, body, { vapid, ttl, topic }, ctx.signal);
      if (outcome.kind !== 'retry') return outcome;
      last = outcome.why;
      reply = outcome.reply;
      if (ctx.signal.aborted) return { kind: 'closed' };
    }
    return { kind: 'failed', why: `gave up after ${this.#delays.length + 1} attempts (last: ${last})` };
  }

  /** One POST to the push service. */
  async #attempt(
    endpoint: string,
    body: Buffer,
    { vapid, ttl, topic }: { vapid: VapidDetails; ttl: number; topic: string },
    closing: AbortSignal,
  ): Promise<Attempt> {
    try {
      // Again before each send: the name may resolve elsewhere since it was subscribed.
      await this.guard.check(endpoint);
    } catch (err) {
      if (err instanceof EndpointRefusedError && err.reason === 'unresolved') return { kind: 'retry', why: 'host unresolved' };
      return { kind: 'failed', why: `endpoint refused (${err instanceof EndpointRefusedError ? err.reason : 'malformed'})` };
    }
    const url = new URL(endpoint);
    // Signed per attempt: the JWT's expiry runs from now; its audience is the push service's origin.
    const { Authorization } = webpush.getVapidHeaders(url.origin, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
    const headers = {
      Authorization,
      TTL: String(ttl),
      Urgency: 'high',
      Topic: topic,
      'Content-Encoding': 'aes128gcm',
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(body.length),
    };
    let reply: PostReply;
    try {
      // Made on first use: a kit that never pushes opens nothing.
      this.#agent ??= this.guard.agent(this.#agentOptions);
      reply = await postStatus(url, headers, body, {
        agent: this.#agent,
        signal: closing,
        timeoutMs: this.#timeoutMs,
      });
    } catch (err) {
      // A refusal at connect time is the guard's: the name now resolves to a refused address.
      if (err instanceof EndpointRefusedError && err.reason !== 'unresolved')
        return { kind: 'failed', why: `endpoint refused (${err.reason})` };
      return { kind: 'retry', why: (err as Error)?.name === 'TimeoutError' ? 'timeout' : 'network error' };
    }
    const { status } = reply;
    if (status >= 200 && status < 300) return { kind: 'delivered' };
    if (gone(status)) return { kind: 'gone' };
    if (retryable(status)) return { kind: 'retry', why: `status ${status}`, reply };
    return { kind: 'failed', why: `status ${status}` };
  }
}
