/**
 * The Standard Webhooks notifier (contract §13): one signed POST per waiting card. The body is
 * `{ type: "ask_user.waiting", timestamp, data: <the notification> }`; the headers `webhook-id` (the
 * requestId, the same on every retry), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,` and the
 * base64 HMAC-SHA256 of `id.timestamp.body` under the `whsec_` secret), signed by the `standardwebhooks`
 * library so any receiver's library verifies it. A timeout, a 5xx, a 408 or a 429 is retried after about
 * 1 s, 5 s, 30 s and 2 min (5 attempts in all), or after the receiver's `Retry-After` when it asks for
 * longer (up to 5 min), never once the card has closed; a 2xx or any other 4xx ends it.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { postStatus, retryWaitMs, type PostReply } from './post-status.js';
import type { Notification, Notifier, NotifyContext } from './notifier.js';
import { abortableSleep } from './abortable-sleep.js';

export interface WebhookNotifierOptions {
  /** Where to POST: an http(s) URL. */
  url: string;
  /** The receiver's `whsec_…` secret (base64 after the prefix), as the Standard Webhooks specification defines it. */
  secret: string;
  /** One attempt's limit before it counts as a timeout. @default 10000 */
  timeoutMs?: number;
  /** Waits before the 2nd, 3rd, … attempt. @default [1000, 5000, 30000, 120000] */
  retryDelaysMs?: readonly number[];
  /** Names it among the kit's notifiers. @default 'webhook' */
  name?: string;
  /**
   * How one POST is made, answered by its status, or by its status and the receiver's `Retry-After` in ms
   * (a bench times it); `signal` aborts it when the kit closes, and the time limit is its own.
   * @default `node:http(s)` over one keep-alive agent per notifier, limited to `timeoutMs`
   */
  post?: (url: URL, headers: Record<string, string>, body: string, signal: AbortSignal) => Promise<number | PostReply>;
  /** For tests: the wait between attempts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const WEBHOOK_EVENT_TYPE = 'ask_user.waiting';
const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000] as const;

/** The HTTP statuses a retry may fix: the receiver was slow, busy or failing. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

export function webhookNotifier(options: WebhookNotifierOptions): Notifier {
  return new WebhookNotifier(options);
}

class WebhookNotifier implements Notifier {
  readonly name: string;
  readonly #url: URL;
  readonly #webhook: Webhook;
  readonly #timeoutMs: number;
  readonly #delays: readonly number[];
  readonly #post: NonNullable<WebhookNotifierOptions['post']>;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(options: WebhookNotifierOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('webhookNotifier: url must be http(s)');
    if (!/^whsec_[A-Za-z0-9+/=]+$/.test(options.secret)) {
      // The secret itself is never put in the message.
      throw new TypeError('webhookNotifier: secret must be a whsec_ secret (base64 after the prefix)');
    }
    this.name = options.name ?? 'webhook';
    this.#url = url;
    this.#webhook = new Webhook(options.secret);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    // One keep-alive agent per notifier: a burst of deliveries reuses its connections.
    const agent = url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    const timeoutMs = this.#timeoutMs;
    this.#post = options.post ?? ((target, headers, body, signal) => postStatus(target, headers, body, { agent, signal, timeoutMs }));
    this.#sleep = options.sleep ?? abortableSleep;
  }

  async notify(notification: Notification, ctx: NotifyContext): Promise<void> {
    const body = JSON.stringify({ type: WEBHOOK_EVENT_TYPE, timestamp: new Date().toISOString(), data: notification });
    let last: PostReply | undefined;
    for (let attempt = 0; attempt <= this.#delays.length; attempt++) {
      if (attempt > 0) {
        await this.#sleep(retryWaitMs(this.#delays[attempt - 1]!, last), ctx.signal);
        if (ctx.signal.aborted || !(await ctx.isOpen())) return;
      }
      const outcome = await this.#send(notification.requestId, body, ctx.signal);
      if (outcome === 'done') return;
      last = outcome;
      if (ctx.signal.aborted) return;
    }
    throw new Error(`gave up after ${this.#delays.length + 1} attempts`);
  }

  /** One attempt: `done` for a 2xx or a 4xx no retry can fix, else the reply to retry after (none for a timeout or a network error). */
  async #send(id: string, body: string, closing: AbortSignal): Promise<'done' | PostReply | undefined> {
    const at = new Date();
    // Signed per attempt: a receiver refuses a timestamp too far in the past.
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.#webhook.sign(id, at, body),
    };
    try {
      // Redirects are not followed: a 3xx ends it as any status that is not retryable does.
      const posted = await this.#post(this.#url, headers, body, closing);
      const reply = typeof posted === 'number' ? { status: posted } : posted;
      return retryable(reply.status) ? reply : 'done';
    } catch {
      return undefined;
    }
  }
}
