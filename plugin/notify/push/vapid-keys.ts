/**
 * The VAPID identity Web Push messages are signed with (RFC 8292, contract §13). A browser subscribes
 * with the public key as its `applicationServerKey` and its push service then accepts only messages
 * signed by the matching private key, so every instance behind one store must sign alike. The keys come
 * from options, else they are generated once and kept in the store: the first instance to write them
 * wins (`ifVersion: null`) and every other one reads the winner's. Kept keys never expire; rotating them
 * voids every subscription. The store then holds the private key: give the keys in options to keep it
 * elsewhere.
 */
import { createECDH } from 'node:crypto';
import webpush from 'web-push';
import type { PendingStore } from '../../store/types.js';

export interface VapidKeyPair {
  /** The uncompressed P-256 public key (65 bytes), base64url: the page's `applicationServerKey`. */
  publicKey: string;
  /** The P-256 private scalar (32 bytes), base64url. */
  privateKey: string;
}

export interface VapidDetails extends VapidKeyPair {
  /** The contact the JWT's `sub` claim names: a `mailto:` or `https:` URI. */
  subject: string;
}

export interface VapidOptions {
  /** Both keys, or neither (then generated once and kept in the store). */
  publicKey?: string;
  privateKey?: string;
  /**
   * Who push services may contact about these messages. Apple's push service refuses a contact on
   * `localhost` (403 `BadJwtToken`); set your site's `https:` URL or a real `mailto:` in production.
   * @default 'mailto:ask-user-kit@localhost'
   */
  subject?: string;
}

export const DEFAULT_VAPID_SUBJECT = 'mailto:ask-user-kit@localhost';

/** Where generated keys are kept; no session's subscriptions key (`push:<sessionId>`) can be this. */
export const VAPID_STATE_KEY = 'push-vapid';

/** How many times a write lost to another and found nothing to read before giving up. */
const ATTEMPTS = 3;

export class VapidKeys {
  readonly subject: string;
  readonly #given: VapidKeyPair | undefined;
  /** Per store, the keys once read or written; a failed read is not kept, so the next call tries again. */
  readonly #kept = new WeakMap<PendingStore, Promise<VapidKeyPair>>();

  constructor(options: VapidOptions = {}) {
    this.subject = checkSubject(options.subject ?? DEFAULT_VAPID_SUBJECT);
    const { publicKey, privateKey } = options;
    if ((publicKey === undefined) !== (privateKey === undefined)) {
      throw new TypeError('vapid: give both publicKey and privateKey, or neither to have them generated and kept in the store');
    }
    this.#given = publicKey !== undefined && privateKey !== undefined ? checkKeyPair({ publicKey, privateKey }) : undefined;
  }

  /** The keys and subject to sign with. */
  async details(store: PendingStore): Promise<VapidDetails> {
    return { ...(await this.keys(store)), subject: this.subject };
  }

  /** The page's `applicationServerKey`. */
  async publicKey(store: PendingStore): Promise<string> {
    return (await this.keys(store)).publicKey;
  }

  keys(store: PendingStore): Promise<VapidKeyPair> {
    if (this.#given) return Promise.resolve(this.#given);
    let kept = this.#kept.get(store);
    if (!kept) {
      kept = this.#readOrCreate(store);
      this.#kept.set(store, kept);
      kept.catch(() => this.#kept.delete(store));
    }
    return kept;
  }

  async #readOrCreate(store: PendingStore): Promise<VapidKeyPair> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const found = await store.getState<VapidKeyPair>(VAPID_STATE_KEY);
      if (found) return checkKeyPair(found.value);
      const generated = webpush.generateVAPIDKeys();
      if (await store.putState(VAPID_STATE_KEY, generated, { ifVersion: null })) return generated;
      // Another instance wrote first: its keys are read on the next turn.
    }
    throw new Error('vapid: the kept keys could not be read or written');
  }
}

function checkSubject(subject: string): string {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    throw new TypeError('vapid: subject must be a mailto: or https: URI');
  }
  if (url.protocol !== 'mailto:' && url.protocol !== 'https:') throw new TypeError('vapid: subject must be a mailto: or https: URI');
  return subject;
}

/** Keys of the right sizes whose public half is the private key's own. Messages never quote a key. */
function checkKeyPair(pair: VapidKeyPair): VapidKeyPair {
  const base64url = /^[A-Za-z0-9_-]+$/;
  if (
    typeof pair?.publicKey !== 'string' ||
    typeof pair.privateKey !== 'string' ||
    !base64url.test(pair.publicKey) ||
    !base64url.test(pair.privateKey)
  ) {
    throw new TypeError('vapid: publicKey and privateKey must be base64url strings');
  }
  const publicKey = Buffer.from(pair.publicKey, 'base64url');
  const privateKey = Buffer.from(pair.privateKey, 'base64url');
  if (publicKey.length !== 65 || privateKey.length !== 32) {
    throw new TypeError('vapid: publicKey must be 65 bytes (uncompressed P-256) and privateKey 32 bytes');
  }
  const ecdh = createECDH('prime256v1');
  try {
    ecdh.setPrivateKey(privateKey);
  } catch {
    throw new TypeError('vapid: privateKey is not a P-256 private key');
  }
  if (!ecdh.getPublicKey().equals(publicKey)) throw new TypeError('vapid: publicKey is not the public key of privateKey');
  return { publicKey: pair.publicKey, privateKey: pair.privateKey };
}
