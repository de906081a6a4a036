/**
 * The seam between the kit and the runtime it builds (the plugin's agent loop, or another runtime):
 * `createAskUserKit({ runtime })` calls the factory once with the store and its coordinator, and the
 * runtime it returns is the kit's RunHost. Neither needs the other introduced afterwards.
 */
import type { AskContext, InterceptResult, ToolCallLike } from './coordinator.js';
import type { AskUserForm, UserInputRequired } from '../contract/schema.js';
import type { AdmitChat, ChatRequest } from './chat-admission.js';
import type { RunHost, SseSink } from './host.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';

/** What the kit gives the runtime it builds: the store and the coordinator a loop calls on each turn. */
export interface RuntimeCore {
  readonly store: PendingStore;
  intercept(toolCalls: readonly ToolCallLike[], ctx: { sessionId: string; noneOpen?: boolean }): Promise<InterceptResult>;
  /** Store an already valid question as the session's pending interaction and announce it (MCP elicitation). */
  ask(form: AskUserForm, ctx: AskContext): Promise<{ record: InteractionRecord; event: UserInputRequired }>;
  /** Close the session's open interaction (superseded, or expired when overdue); the host's `closed` runs. */
  supersede(sessionId: string): Promise<InteractionRecord | undefined>;
  /** Close the session's interaction as expired if it is overdue. */
  expireDue(sessionId: string): Promise<InteractionRecord | undefined>;
  /** Audit a resolution rolled forward after its claimer died. */
  auditRecovered(record: InteractionRecord): void;
  /** The chat's door: checks the session, the message and the caller (the kit's `authorize`), audits refusals. */
  admitChat: AdmitChat;
}

/**
 * What a runtime's `chat` takes: the caller and the fields as the host received them (each is checked:
 * 400 `invalid_request`, 403 `forbidden`), and the chat stream. Given as a function, the stream opens only
 * once the request is admitted, and a refusal rejects with an `AskUserError` the host answers as JSON;
 * given open, a refusal is written on it as an `error` event.
 */
export interface ChatInput extends ChatRequest {
  sse: SseSink | (() => SseSink);
}

/**
 * Builds the run host from what the kit gives it, once, inside `createAskUserKit({ runtime })`: the kit
 * and its runtime are made by one call and need no introduction afterwards.
 */
export type RuntimeFactory<R extends RunHost> = (core: RuntimeCore) => R;
