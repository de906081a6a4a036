/**
 * The browsers a session reaches by Web Push (contract §13): each `PushSubscription` a page sent for
 * it, kept in the store so every instance sends to the same ones. A session's subscriptions are one
 * state entry, `push:<sessionId>`, changed by compare-and-set: a notification reads one key (never a
 * scan of the store), and one session's entries can never be listed with another's whose id shares a
 * prefix. A subscription lives `ttlMs` (30 days) from when it was last sent, or until the browser's own
 * `expirationTime`; a page that subscribes on each visit keeps it alive. A session keeps at most
 * `maxPerSession` (10): a new one pushes out the one closest to its end.
 */
import { z } from 'zod';
import { StoreUnavailableError, type PendingStore } from '../../store/types.js';
import { MAX_ENDPOINT_LENGTH } from './endpoint-guard.js';

const base64urlOf = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `must be base64url (${what})`)
    .refine((text) => Buffer.from(text, 'base64url').length === bytes, `must be ${bytes} bytes (${what})`);

/**
 * The browser's `PushSubscription.toJSON()`. Messages name the rule, never the value: an endpoint is a
 * capability of the browser's, and the keys decrypt its messages.
 */
export const pushSubscriptionSchema = z.object({
  endpoint: z
    .string()
    .max(MAX_ENDPOINT_LENGTH, `at most ${MAX_ENDPOINT_LENGTH} characters`)
    .refine((text) => URL.canParse(text) && new URL(text).protocol === 'https:', 'must be an https: URL'),
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: z.object({
    p256dh: base64urlOf(65, 'an uncompressed P-256 public key').refine(
      (text) => Buffer.from(text, 'base64url')[0] === 0x04,
      'must be an uncompressed P-256 public key',
    ),
    auth: base64urlOf(16, 'the authentication secret'),
  }),
});

/** A subscription as kept and sent to: only the fields Web Push uses. */
export interface PushSubscriptionJson {
  endpoint: string;
  /** Epoch ms after which the browser stops accepting on it, when the browser said. */
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

export interface PushSubscriptionsOptions {
  /** How long a subscription is kept after it was last sent. @default 30 days */
  ttlMs?: number;
  /** Subscriptions kept per session; a new one beyond pushes out the one closest to its end. @default 10 */
  maxPerSession?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

export const DEFAULT_SUBSCRIPTION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION = 10;

/** One kept subscription and when it goes. */
interface Kept {
  subscription: PushSubscriptionJson;
  /** Epoch ms. */
  until: number;
}

interface Stored {
  subscriptions: Kept[];
}

export const pushStateKey = (sessionId: string) => `push:${sessionId}`;

/** How many times a write that lost to another is tried again before the store counts as unavailable. */
const ATTEMPTS = 8;

export class PushSubscriptions {
  readonly #store: PendingStore;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(store: PendingStore, options: PushSubscriptionsOptions = {}) {
    const { ttlMs, maxPerSession, now } = checkSubscriptionOptions(options);
    this.#store = store;
    this.#ttlMs = ttlMs;
    this.#max = maxPerSession;
    this.#now = now;
  }

  /** Keep `subscription` for the session (or refresh it): `created` when its endpoint was not kept yet. */
  async add(sessionId: string, subscription: PushSubscriptionJson): Promise<'created' | 'updated'> {
    const now = this.#now();
    const browserEnd = subscription.expirationTime ?? Infinity;
    const kept: Kept = { subscription: copyOf(subscription), until: Math.min(now + this.#ttlMs, browserEnd) };
    let outcome: 'created' | 'updated' = 'created';
    await this.#update(sessionId, (live) => {
      const others = live.filter((k) => k.subscription.endpoint !== subscription.endpoint);
      outcome = others.length === live.length ? 'created' : 'updated';
      // The new one stays; of the others, those that end last.
      const room = others.sort((a, b) => b.until - a.until).slice(0, this.#max - 1);
      return [...room, kept];
    });
    return outcome;
  }

  /** The session's live subscriptions. */
  async list(sessionId: string): Promise<PushSubscriptionJson[]> {
    const entry = await this.#store.getState<Stored>(pushStateKey(sessionId), { sessionId });
    return liveOf(entry?.value, this.#now()).map((k) => k.subscription);
  }

  /** Forget the subscription with this endpoint; false when the session had none. */
  async remove(sessionId: string, endpoint: string): Promise<boolean> {
    let removed = false;
    await this.#update(sessionId, (live) => {
      const rest = live.filter((k) => k.subscription.endpoint !== endpoint);
      removed = rest.length !== live.length;
      return removed ? rest : undefined;
    });
    return removed;
  }

  /** Compare-and-set the session's entry: `change` returns the new list, or undefined to write nothing. */
  async #update(sessionId: string, change: (live: Kept[]) => Kept[] | undefined): Promise<void> {
    const key = pushStateKey(sessionId);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const entry = await this.#store.getState<Stored>(key, { sessionId });
      const now = this.#now();
      const next = change(liveOf(entry?.value, now));
      if (next === undefined) return;
      const ifVersion = entry?.version ?? null;
      const written =
        next.length === 0
          ? entry === undefined || (await this.#store.deleteState(key, entry.version, { sessionId }))
          : await this.#store.putState<Stored>(
              key,
              { subscriptions: next },
              // The entry goes with its last subscription.
              { ifVersion, ttlMs: Math.max(1, Math.max(...next.map((k) => k.until)) - now), sessionId },
            );
      if (written) return;
    }
    throw new StoreUnavailableError('push subscriptions: too many concurrent changes to one session; retry shortly');
  }
}

/** The options with their defaults, or a TypeError naming the one that is wrong. */
export function checkSubscriptionOptions(options: PushSubscriptionsOptions): Required<PushSubscriptionsOptions> {
  const { ttlMs = DEFAULT_SUBSCRIPTION_TTL_MS, maxPerSession = DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION, now = Date.now } = options;
  if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new TypeError(`push subscriptions: ttlMs must be positive, got ${ttlMs}`);
  if (!(Number.isInteger(maxPerSession) && maxPerSession > 0))
    throw new TypeError(`push subscriptions: maxPerSession must be a positive integer, got ${maxPerSession}`);
  return { ttlMs, maxPerSession, now };
}

function liveOf(stored: Stored | undefined, now: number): Kept[] {
  return (stored?.subscriptions ?? []).filter((k) => k.until > now);
}

/** Only the fields Web Push uses: whatever else a page sent is not kept. */
function copyOf(subscription: PushSubscriptionJson): PushSubscriptionJson {
  const { endpoint, expirationTime, keys } = subscription;
  return {
    endpoint,
    ...(expirationTime === undefined ? {} : { expirationTime }),
    // Padding is dropped: the keys are kept as browsers send them.
    keys: { p256dh: keys.p256dh.replace(/=+$/, ''), auth: keys.auth.replace(/=+$/, '') },
  };
}
