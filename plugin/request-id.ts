/** Request ids: `ask_` + 128 random bits, base64url (22 chars), unguessable so an id is a capability. */
import { randomBytes } from 'node:crypto';

export const REQUEST_ID_PREFIX = 'ask_';

export function newRequestId(): string {
  return REQUEST_ID_PREFIX + randomBytes(16).toString('base64url');
}
