/** Public entry of `ask-user-kit/plugin`. Anything not exported here is internal and may change. */
export {
  createAskUserKit,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_TTL_MS,
  type AskUserKit,
  type AskUserKitOptions,
} from './ask-user-kit.js';
export {
  createCoordinator,
  parseAskUserArguments,
  userInputRequiredOf,
  type CloseStatus,
  type Coordinator,
  type CoordinatorOptions,
  type ErrorToolResult,
  type InterceptContext,
  type InterceptResult,
  type ToolCallLike,
} from './coordinator.js';
export { createRoutes, receiptOf, type RoutesDeps, type RouteRequest, type RouteIo, type RouteResult, type JsonReply, type RouteHandler } from './routes.js';
export { allowAnyCaller, type Authorize } from './authorization.js';
export { crossSiteReason, type SameOriginOptions } from './same-origin.js';
export { formatEvent, formatComment, SSE_HEADERS, type OpenSseOptions, type SseTimers } from './sse-format.js';
export {
  AUDIT_EVENTS,
  consoleAuditLogger,
  memoryAuditLogger,
  recordEntry,
  safeAuditLogger,
  type AuditEntry,
  type AuditEvent,
  type AuditLogger,
  type AuditReason,
} from './audit.js';
export { AskUserError, ERROR_STATUS, isAskUserError, type AskUserErrorOptions, type Receipt } from './errors.js';
export { newRequestId, REQUEST_ID_PREFIX } from './request-id.js';
export {
  createInProcessHost,
  InProcessHostError,
  type InProcessAnswer,
  type InProcessHost,
  type InProcessHostOptions,
} from './in-process-host.js';
export { lazyStore, type LazyStore } from './lazy-store.js';
export type { ClosedContext, ResumeContext, RunHost, SseSink } from './host.js';
export type { RuntimeCore, RuntimeFactory } from './runtime.js';

export * from './contract/schema.js';
export { checkAnswer, isCalendarDate, isFiniteDecimal, isRelativePath, type AnswerCheck, type AnswerProblem, type AnswerShape, type FormShape } from './contract/answer-rules.js';
export { isChoiceMode, type ChoiceMode } from './contract/limits.js';
export {
  ASK_USER_DESCRIPTIONS,
  ASK_USER_TOOL_NAME,
  askUserChatTool,
  askUserFallback,
  askUserParameters,
  askUserResponsesTool,
  type FallbackToolResult,
  type ToolLocale,
} from './contract/tool-definition.js';
export { answerToolResultText, closedToolResultText } from './contract/tool-result.js';
export { openStore, parseStoreUrl, STORE_URL_FORMS, StoreError, type StoreErrorCode, type StoreTarget } from './store/index.js';
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
