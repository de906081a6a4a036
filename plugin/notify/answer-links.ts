/**
 * One-card answer links (contract §13): `<publicUrl>/answer/<token>`, a capability to answer exactly one
 * card without the owner's credentials. The token is 256 random bits; the store keeps only its SHA-256
 * (`answer-link:<hash>`, with the card it opens), so a read of the store gives no link away. A link is
 * good while its card waits and is consumed by the answer; it appears in no log and no audit line.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { InteractionRecord, PendingStore } from '../store/types.js';

export interface AnswerLinksOptions {
  /** The public origin links are built on (`https://agent.example.com`); a path after it is kept. */
  publicUrl: string;
}

/** What a token opens. */
export interface AnswerLinkTarget {
  requestId: string;
  sessionId: string;
}

/** A token as it appears in a link: 32 random bytes, base64url. */
export const ANSWER_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** How long a link's row outlives its card, so a late visit is told the card closed (410), not "unknown". */
const GRACE_MS = 24 * 60 * 60 * 1000;

const keyOf = (token: string) => `answer-link:${createHash('sha256').update(token).digest('base64url')}`;

export class AnswerLinks {
  readonly #store: PendingStore;
  readonly #base: string;
  readonly #now: () => number;

  /** `now` is the kit's clock: a link's row lives as long as its card by the clock that set the card's expiry. */
  constructor(store: PendingStore, { publicUrl }: AnswerLinksOptions, now: () => number = Date.now) {
    let url: URL;
    try {
      url = new URL(publicUrl);
    } catch {
      throw new TypeError('answerLinks.publicUrl must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('answerLinks.publicUrl must be an http(s) URL');
    this.#store = store;
    this.#now = now;
    this.#base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }

  /** A new link to `record`'s card. Each call makes another; every one of them stops working when the card closes. */
  async linkFor(record: Pick<InteractionRecord, 'requestId' | 'sessionId' | 'expiresAt'>): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const target: AnswerLinkTarget = { requestId: record.requestId, sessionId: record.sessionId };
    await this.#store.putState(keyOf(token), target, { ttlMs: Math.max(0, record.expiresAt - this.#now()) + GRACE_MS });
    return `${this.#base}/answer/${token}`;
  }

  /** The card a token opens, or undefined for a token that is malformed, unknown or used. */
  async resolve(token: string): Promise<AnswerLinkTarget | undefined> {
    if (!ANSWER_TOKEN.test(token)) return undefined;
    return (await this.#store.getState<AnswerLinkTarget>(keyOf(token)))?.value;
  }

  /** The answer went through: the token opens nothing any more. */
  async consume(token: string): Promise<void> {
    if (ANSWER_TOKEN.test(token)) await this.#store.deleteState(keyOf(token));
  }
}
