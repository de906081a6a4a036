/**
 * Audit trail (docs/protocol.md §8): one structured entry per lifecycle event. Entries carry ids, times, the
 * mode, selected option ids and the *length* of free text; the free text itself never enters an entry,
 * because audit logs travel further than the data they describe.
 */
import { formMode, type Answer, type AskUserForm, type CardMode, type ErrorCode } from '../contract/schema.js';
import type { InteractionRecord } from '../store/types.js';

export const AUDIT_EVENTS = [
  'asked',
  'answered',
  'cancelled',
  'expired',
  'superseded',
  'rejected',
  'approved',
  'denied',
  'edited',
] as const;
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
  /** The question's mode, or `form` for several questions (§9.2). */
  mode?: CardMode;
  /** When the question was asked, ISO 8601. */
  askedAt?: string;
  /** ISO 8601. */
  expiresAt?: string;
  /** Selected option ids (only ids of the stored form; anything else a client sent is left out). */
  selections?: string[];
  /** Length in UTF-16 code units of the typed text; the text itself is never logged. */
  customInputLength?: number;
  /** Several questions (§9.2): per question, the known ids chosen and the length of the text. */
  answers?: AnswerSummary[];
  /** For `approved`, `denied`, `edited` (§12): the call's tool and the names of its arguments, never their values. */
  tool?: string;
  argumentKeys?: string[];
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

export interface AnswerSummary {
  id: string;
  selections: string[];
  customInputLength: number;
}

/**
 * What the audit line and `interaction_resolved` say of an answer: ids that are options of the stored
 * question (anything else a client sent is left out) and the length of the text, never the text; for
 * several questions, that per question (§9.2).
 */
export function summarizeAnswer(
  form: AskUserForm,
  answer: Answer,
): { selections: string[]; customInputLength: number } | { answers: AnswerSummary[] } {
  const known = (options: AskUserForm['options']) => {
    const ids = new Set((options ?? []).map((o) => o.id));
    return (selections: readonly string[]) => selections.filter((id) => ids.has(id));
  };
  if (form.questions) {
    const answers = answer.answers ?? [];
    return {
      answers: answers.map((a, i) => ({
        id: a.id,
        selections: known(form.questions![i]?.options)(a.selections),
        customInputLength: a.customInput.length,
      })),
    };
  }
  return { selections: known(form.options)(answer.selections), customInputLength: answer.customInput.length };
}

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
    mode: formMode(record.form),
    askedAt: iso(record.createdAt),
    expiresAt: iso(record.expiresAt),
  };
  if (extra.answer) Object.assign(entry, summarizeAnswer(record.form, extra.answer));
  if (extra.reason) entry.reason = extra.reason;
  if (extra.detail) entry.detail = extra.detail;
  if (extra.recovered) entry.recovered = true;
  return entry;
}

/**
 * One line per call of an approval card's answer (§12): `approved`, `edited` (approved with changed
 * arguments) or `denied`, with the tool and the argument names the call ran (or would have run) with.
 */
export function decisionEntries(record: InteractionRecord, at: number, answer: Answer): AuditEntry[] {
  const calls = record.form.approvals ?? [];
  return (answer.decisions ?? []).map((d, i) => {
    const call = calls[i];
    const event: AuditEvent = d.decision === 'deny' ? 'denied' : d.arguments !== undefined ? 'edited' : 'approved';
    return {
      ...recordEntry(event, record, at),
      toolCallId: d.toolCallId,
      tool: call?.tool ?? '',
      argumentKeys: Object.keys(d.arguments ?? call?.arguments ?? {}),
    };
  });
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
