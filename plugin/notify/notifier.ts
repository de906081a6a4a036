/**
 * Reaching a user who is away (contract §13): what a notifier is told about a card that waits, and the
 * interface a host implements for a channel of its own (Slack, e-mail). The kit's own are the Standard
 * Webhooks notifier (webhook-notifier.ts) and Web Push (push/). A notification names the card and
 * never carries the free text of any answer, nor anything of the session but its id.
 */
import type { InteractionRecord, PendingStore } from '../store/types.js';

export type NotificationKind = 'question' | 'approval' | 'elicitation';

/** A card that has waited `notifyAfterMs` without an answer. */
export interface Notification {
  sessionId: string;
  requestId: string;
  /** `question` (ask_user), `approval` (§12) or `elicitation` (§10). */
  kind: NotificationKind;
  /** The card's title. */
  title: string;
  /** When the card expires, ISO 8601. */
  expiresAt: string;
  /** The card's one-card answer link, when answer links are on. */
  answerUrl?: string;
}

/** What a notifier may ask while it works. */
export interface NotifyContext {
  /** Aborted when the kit closes. */
  signal: AbortSignal;
  /** True while the card still waits: a notifier that retries asks before each attempt, and stops once it is closed. */
  isOpen(): Promise<boolean>;
  /** The kit's store, where a notifier keeps what it needs (Web Push: the session's subscriptions). */
  store: PendingStore;
}

export interface Notifier {
  /** Names the notifier in markers and logs; unique among a kit's notifiers. */
  readonly name: string;
  /** Deliver one notification; resolves when done or given up. A throw is logged, never retried by the kit. */
  notify(notification: Notification, ctx: NotifyContext): Promise<void>;
}

/** Tool call ids of the cards an MCP server's elicitation asks (plugin/mcp/elicitation-bridge.ts). */
export const ELICITATION_CALL_PREFIX = 'mcp_';

/** The notification of a card; nothing of its questions, options or answers goes in but its title. */
export function notificationOf(record: InteractionRecord, answerUrl?: string): Notification {
  const kind: NotificationKind =
    record.form.approvals !== undefined ? 'approval' : record.toolCallId.startsWith(ELICITATION_CALL_PREFIX) ? 'elicitation' : 'question';
  return {
    sessionId: record.sessionId,
    requestId: record.requestId,
    kind,
    title: record.form.title,
    expiresAt: new Date(record.expiresAt).toISOString(),
    ...(answerUrl ? { answerUrl } : {}),
  };
}
