/**
 * Request ids: `ask_` + 128 random bits, base64url (22 chars), unguessable so an id is a capability; then
 * the session's slot tag (11 chars, plugin/store/session-slot.ts), so a store that shards by session finds
 * a question by its id alone.
 */
import { randomFillSync } from 'node:crypto';
import { sessionSlotTag } from '../store/session-slot.js';

export const REQUEST_ID_PREFIX = 'ask_';

const ID_BYTES = 16;
// One CSPRNG call per 256 ids instead of one per id (as crypto.randomUUID pools its entropy); every byte
// is used once, and the pool lives only in this module.
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

export function newRequestId(sessionId?: string): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return REQUEST_ID_PREFIX + id + (sessionId === undefined ? '' : sessionSlotTag(sessionId));
}
