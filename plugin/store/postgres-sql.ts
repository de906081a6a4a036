/**
 * What the PostgreSQL backend's statements share (postgres-backend.ts, postgres-log.ts): the server's clock
 * as SQL, and statements sent by name, so each connection parses a statement once rather than per call.
 */
import { createHash } from 'node:crypto';

/** Epoch ms on the server's clock, now (not at the transaction's start), as SQL. */
export const SERVER_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)';

/** One statement text and the name it is prepared under (one name per text, as pg requires). */
export interface Statement {
  name: string;
  text: string;
}

export const statement = (text: string): Statement => ({
  name: `auk_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`,
  text,
});
