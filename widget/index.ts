/**
 * The widget's public surface (package.json `exports["./widget"]`, built into dist/widget/), exactly what
 * README.md's "The widget" section documents. Importing it registers `<ask-user-card>` and
 * `<ask-user-provider>`. Every name is listed: a helper added to a module stays internal until it is
 * added here. The lazily loaded chunks may use only names exported here (see client-calls.ts).
 */

// Elements and what their properties and methods take.
export { AskUserCard, type AskUserReceipt, type AskUserRequest, type DoneReason } from './ask-user-card.js';
export { AskUserProvider } from './ask-user-provider.js';

// Events of <ask-user-card> and <ask-user-provider>, and their details.
export {
  AskUserConnectionEvent,
  AskUserContinuedEvent,
  AskUserErrorEvent,
  AskUserExpiredEvent,
  AskUserSubmitEvent,
  type AskUserConnectionDetail,
  type AskUserContinuedDetail,
  type AskUserErrorDetail,
  type AskUserExpiredDetail,
  type AskUserSubmitDetail,
} from './events.js';
export type { FailureOutcome, Receipt, ReceiptKind, SubmitFailure } from './receipt.js';

// The context a provider gives its cards.
export { askUserContext, type AskUserContextValue } from './context.js';

// Words of the card.
export { STRINGS, type AskUserApprovalStrings, type AskUserLocale, type AskUserStrings } from './strings.js';

// Calls to the agent server.
export {
  ClientError,
  fetchPending,
  resumeChat,
  startChat,
  stopChat,
  submitUserInput,
  type ChatConnectionEvent,
  type ChatEventStream,
  type ChatRequest,
  type ClientErrorInfo,
  type ClientOptions,
  type ConnectionState,
  type ContinueRequest,
  type ContinueResult,
  type InteractionReceipt,
  type ReconnectClock,
  type ResumeOptions,
  type StopResult,
  type StreamOptions,
  type SubmitOptions,
} from './client.js';
// Tool approval (§12): what an approval card shows of each call and what its answer holds (types only: the card's
// code for approvals loads with the first approval card).
export type { ApprovalDecision, ApprovalRequest } from '../plugin/contract/approval.js';
export { ChatStreamError, readChatEvents, type ChatStreamErrorCode, type ReadChatEventsOptions } from './sse-reader.js';

// Chat-stream events and the checks that accept them.
export {
  isPendingInteraction,
  isUserInputRequired,
  parseChatEvent,
  type ChatEvent,
  type ChatEventMap,
  type ChatEventName,
  type ChatEventOf,
  type PendingInteraction,
  type UserInputRequired,
} from './chat-events.js';
