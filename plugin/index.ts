/**
 * Public entry of `ask-user-kit/plugin`: the kit, its authorization, the store, the contract's shapes and
 * the model's tool, audit, and the seams a runtime or an adapter of your own plugs into. The framework
 * adapters are their own entries (`/koa`, `/express`, `/hono`, `/fetch`), the agent loop is `/loop`.
 * Anything not exported here is internal and may change.
 */
export {
  createAskUserKit,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_NOTIFY_AFTER_MS,
  DEFAULT_TTL_MS,
  type AskUserKit,
  type AskUserKitOptions,
  type ServeRoutes,
} from './core/ask-user-kit.js';
export type { AdmitChat, AdmittedChat, ChatRequest } from './core/chat-admission.js';
export type { ChatRuntime, ServeChat } from './core/chat-route.js';
export { allowAnyCaller, type Authorize } from './core/authorization.js';
export type { InterceptContext, InterceptResult, ErrorToolResult, ToolCallLike, CloseStatus } from './core/coordinator.js';
export type { ClosedContext, ResumeContext, RunHost, SseSink } from './core/host.js';
export type { Coordinator } from './core/coordinator.js';
export type { ChatInput, RuntimeCore, RuntimeFactory } from './core/runtime.js';
export type { InProcessAnswer } from './core/in-process-host.js';
export type { RouteRequest, RouteResult, JsonReply } from './core/routes.js';
export { crossSiteReason, type SameOriginOptions } from './core/same-origin.js';
export { formatEvent, SSE_HEADERS, type OpenSseOptions, type SseTimers } from './core/sse-format.js';
export {
  consoleAuditLogger,
  memoryAuditLogger,
  AUDIT_EVENTS,
  type AuditEntry,
  type AuditEvent,
  type AuditLogger,
  type AuditReason,
} from './core/audit.js';
export { AskUserError, isAskUserError, type Receipt } from './core/errors.js';
export { openStore, parseStoreUrl, StoreError, type StoreErrorCode, type StoreTarget } from './store/index.js';
export {
  StoreUnavailableError,
  type ClaimOptions,
  type ClaimOutcome,
  type InteractionRecord,
  type PendingStore,
  type PutStateOptions,
  type Resolution,
  type StateEntry,
  type StoreOptions,
} from './store/types.js';

// The contract (docs/protocol.md): shapes, limits and rules, as the widget shares them.
export {
  askUserArgsSchema,
  askUserQuestionSchema,
  continueBodySchema,
  formToolResultContentSchema,
  errorBodySchema,
  interactionResolvedSchema,
  pendingInteractionSchema,
  requestIdSchema,
  sessionIdSchema,
  toolResultContentSchema,
  userInputRequiredSchema,
  ERROR_CODES,
  LIMITS,
  MODES,
  RESOLVED_STATUSES,
  type Answer,
  type AskUserArgs,
  type AskUserOption,
  type AskUserQuestion,
  type FormQuestion,
  type FormToolResultContent,
  type QuestionAnswer,
  type ChatEventMap,
  type ChatEventName,
  type ContinueBody,
  type DoneReason,
  type ErrorBody,
  type ErrorCode,
  type InteractionResolved,
  type Mode,
  type PendingInteraction,
  type ResolvedStatus,
  type ToolResultContent,
  type ToolResultEvent,
  type UserInputRequired,
} from './contract/schema.js';
export {
  checkAnswer,
  checkContinue,
  type AnswerCheck,
  type AnswerProblem,
  type ContinueCheck,
  type ContinueProblem,
} from './contract/answer-rules.js';
export {
  ASK_USER_DESCRIPTIONS,
  ASK_USER_TOOL_NAME,
  askUserChatTool,
  askUserFallback,
  askUserParameters,
  askUserResponsesTool,
  strictParameters,
  type FallbackToolResult,
  type ToolLocale,
} from './contract/tool-definition.js';
export {
  answerToolResultText,
  APPROVAL_CANCEL_ANSWER,
  CANCEL_ANSWER,
  FORM_CANCEL_ANSWER,
  closedToolResultText,
} from './contract/tool-result.js';
// Tool approval (contract §12): the card's calls, their decisions, and the results a denied or interrupted call gets.
export {
  APPROVAL_LIMITS,
  checkDecisions,
  deniedResultText,
  INTERRUPTED_RESULT,
  type ApprovalCheck,
  type ApprovalDecision,
  type ApprovalRequest,
  type DenyReason,
} from './contract/approval.js';
export type { ApprovalContext, ApprovalPolicy } from './tools/approval-policy.js';
// Reaching a user who is away (contract §13): the notifier interface and the kit's Standard Webhooks notifier.
export type { Notification, NotificationKind, Notifier, NotifyContext } from './notify/notifier.js';
export { webhookNotifier, WEBHOOK_EVENT_TYPE, type WebhookNotifierOptions } from './notify/webhook-notifier.js';
export { webPushNotifier, WebPushNotifier, type WebPushNotifierOptions, type WebPushPayload } from './notify/push/web-push-notifier.js';
export type { PushSubscriptionJson } from './notify/push/push-subscriptions.js';
export { DEFAULT_VAPID_SUBJECT } from './notify/push/vapid-keys.js';
