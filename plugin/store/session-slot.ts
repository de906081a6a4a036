/**
 * A session's slot tag (contract §14): 11 base64url characters of the SHA-256 of its id, the same on every
 * instance. A store that shards by key (Redis Cluster) hashes every key of one session by this tag, so a
 * session's question, run, markers and log live in one slot and each compare-and-swap stays one atomic
 * script. Request ids end with their session's tag, so a lookup by request id alone finds the slot too.
 */
import { createHash } from 'node:crypto';

export const SLOT_TAG_LENGTH = 11;

export const sessionSlotTag = (sessionId: string): string =>
  createHash('sha256').update(sessionId).digest('base64url').slice(0, SLOT_TAG_LENGTH);

/** `ask_` + 22 random characters + the tag: the form request ids carry a slot tag in. */
const TAGGED_REQUEST_ID = /^ask_[A-Za-z0-9_-]{22}([A-Za-z0-9_-]{11})$/;

/** The slot tag a request id ends with, or undefined for an id made before tags (or by a host of its own). */
export function requestSlotTag(requestId: string): string | undefined {
  return TAGGED_REQUEST_ID.exec(requestId)?.[1];
}
