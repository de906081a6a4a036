/**
 * Audit trail (docs/protocol.md §8): one structured entry per lifecycle event. Entries carry ids, times, the
 * mode, selected option ids and the *length* of free text; the free text itself never enters an entry,
 * because audit logs travel further than the data they describe.
 */
import type { Answer, ErrorCode, Mode } from '../contract/schema.js';
import type { InteractionRecord } from '../store/types.js';

export const AUDIT_EVENTS = ['asked', 'answered', 'cancelled', 'expired', 'superseded', 'rejected'] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/**
 * Why something was rejected: a route's error code, or, for an `ask_user` call refused at interception,
 * `invalid_arguments` / `one_question_at_a_time`.
 */
export type AuditReason = ErrorCode | 'invalid_arguments' | 'one_question_at_a_time';

export interface AuditEntry {
  event: AuditEvent;
  /** When the event happened, ISO 8601. */
  at: string;
  sessionId?: string;
  requestId?: string;
  toolCallId?: string;
  mode?: Mode;
  /** When the question was asked, ISO 8601. */
  askedAt?: string;
  /** ISO 8601. */
  expiresAt?: string;
  /** Selected option ids (only ids of the stored form; anything else a client sent is left out). */
  selections?: string[];
  /** Length in UTF-16 code units of the typed text; the text itself is never logged. */
  customInputLength?: number;
  /** For `rejected`. */
  reason?: AuditReason;
  /** For `rejected`: a short explanation that never quotes user input. */
  detail?: string;
  /**
   * Set when the line is written by a roll-forward, which wrote the ToolResult its claimer did not (the
   * claimer may have died before its own line). At least once, never none: when the claimer had logged
   * (it died just after, or the roll-forward raced it before its ToolResult write), the requestId has
   * two lines: dedupe by requestId and event.
   */
  recovered?: true;
}

/** Where audit entries go. Must not throw; a failing sink must not fail a user's answer. */
export interface AuditLogger {
  audit(entry: AuditEntry): void;
}

/** Default sink: one JSON line per entry on stdout, tagged so log shippers can route it. */
export function consoleAuditLogger(write: (line: string) => void = (line) => console.log(line)): AuditLogger {
  return {
    audit(entry) {
      write(JSON.stringify({ type: 'ask_user.audit', ...entry }));
    },
  };
}

/** Collects entries in memory; for tests and for hosts that forward entries themselves. */
export function memoryAuditLogger(): AuditLogger & { entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  return { entries, audit: (entry) => void entries.push(entry) };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The entry for an event about a stored interaction; `answer` adds selections and the text length. */
export function recordEntry(
  event: AuditEvent,
  record: InteractionRecord,
  at: number,
  extra: { answer?: Answer; reason?: AuditReason; detail?: string; sessionId?: string; recovered?: true } = {},
): AuditEntry {
  const entry: AuditEntry = {
    event,
    at: iso(at),
    sessionId: extra.sessionId ?? record.sessionId,
    requestId: record.requestId,
    toolCallId: record.toolCallId,
    mode: record.form.mode,
    askedAt: iso(record.createdAt),
    expiresAt: iso(record.expiresAt),
  };
  if (extra.answer) {
    const known = new Set((record.form.options ?? []).map((o) => o.id));
    entry.selections = extra.answer.selections.filter((id) => known.has(id));
    entry.customInputLength = extra.answer.customInput.length;
  }
  if (extra.reason) entry.reason = extra.reason;
  if (extra.detail) entry.detail = extra.detail;
  if (extra.recovered) entry.recovered = true;
  return entry;
}

/** Wraps a sink so an exception inside it is swallowed (and reported once) instead of failing a request. */
export function safeAuditLogger(logger: AuditLogger, onError: (err: unknown) => void = () => {}): AuditLogger {
  return {
    audit(entry) {
      try {
        logger.audit(entry);
      } catch (err) {
        onError(err);
      }
    },
  };
}
