/**
 * The physical keys the generic store writes (contract §14). On most backends they are the plain
 * `<namespace>:<kind>:<id>` they always were. On a backend that shards by hash slot (Redis Cluster) each
 * key ends with `{<slot tag>}`, so every key of one session hashes to that session's slot: Redis hashes
 * only what is between the first `{` and the next `}`. The logical part is escaped (`%` `{` `}` as
 * `%25` `%7B` `%7D`) so the tag's braces are the only ones, and escaping keeps prefixes prefixes, so a
 * prefix scan still works.
 */
import { requestSlotTag, sessionSlotTag } from './session-slot.js';

export interface PhysicalKeys {
  interaction(requestId: string): string;
  session(sessionId: string): string;
  /** `sessionId`: the session the key belongs to, whose slot it joins; otherwise it gets a slot of its own. */
  state(key: string, sessionId?: string): string;
  /** Where state keys starting with `prefix` start (for a scan). */
  statePrefix(prefix: string): string;
  /** The logical state key of a physical one that `statePrefix('')` starts. */
  logicalState(physical: string): string;
  /** The event log's key for a session; the log derives its own keys from it and stays in its slot. */
  log(sessionId: string): string;
}

export function physicalKeys(namespace: string, slotted: boolean): PhysicalKeys {
  const stateStart = `${namespace}:state:`;
  if (!slotted) {
    return {
      interaction: (requestId) => `${namespace}:interaction:${requestId}`,
      session: (sessionId) => `${namespace}:session:${sessionId}`,
      state: (key) => `${stateStart}${key}`,
      statePrefix: (prefix) => `${stateStart}${prefix}`,
      logicalState: (physical) => physical.slice(stateStart.length),
      log: (sessionId) => `${namespace}:log:${sessionId}`,
    };
  }
  // An id made before request ids carried a tag hashes by itself: still one slot, just not its session's.
  return {
    interaction: (requestId) =>
      `${namespace}:interaction:${escapeKey(requestId)}{${requestSlotTag(requestId) ?? sessionSlotTag(requestId)}}`,
    session: (sessionId) => `${namespace}:session:${escapeKey(sessionId)}{${sessionSlotTag(sessionId)}}`,
    state: (key, sessionId) => `${stateStart}${escapeKey(key)}{${sessionSlotTag(sessionId ?? key)}}`,
    statePrefix: (prefix) => `${stateStart}${escapeKey(prefix)}`,
    logicalState: (physical) => unescapeKey(physical.slice(stateStart.length, physical.lastIndexOf('{'))),
    log: (sessionId) => `${namespace}:log:${escapeKey(sessionId)}{${sessionSlotTag(sessionId)}}`,
  };
}

const escapeKey = (key: string): string => key.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const unescapeKey = (key: string): string => key.replace(/%(25|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
