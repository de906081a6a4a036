/** Request ids: `ask_` + 128 random bits, base64url (22 chars), unguessable so an id is a capability. */
import { randomFillSync } from 'node:crypto';

export const REQUEST_ID_PREFIX = 'ask_';

const ID_BYTES = 16;
// One CSPRNG call per 256 ids instead of one per id (as crypto.randomUUID pools its entropy); every byte
// is used once, and the pool lives only in this module.
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

export function newRequestId(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return REQUEST_ID_PREFIX + id;
}
