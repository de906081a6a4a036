/**
 * Writing an ask_user ToolResult into a persisted AI SDK run, and rolling forward what a crash left
 * between the store's claim and that write: the plugin loop's writer and roll-forward
 * (plugin/loop/tool-result-writer.ts), on the AI SDK's ModelMessage history. Idempotent by toolCallId.
 */
import type { ModelMessage } from 'ai';
import type { Hold } from '../loop/run-lease.js';
import type { PausedIndex } from '../loop/paused-index.js';
import { rollForwardRun, writeToolResult, type HistoryOps, type RollForwardResult, type WriteOutcome } from '../loop/tool-result-writer.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';
import type { AiRunState, AiRunStates } from './ai-run-state.js';
import { askUserResultPart, hasToolResult, insertToolResult, unansweredToolCalls } from './history.js';

/** The AI SDK's history: an ask_user result is a tool-result part at its call's place. */
const aiHistory: HistoryOps<ModelMessage> = {
  hasToolResult,
  unansweredToolCalls,
  withToolResult: (messages, toolCallId, content) => insertToolResult(messages, askUserResultPart(toolCallId, content)),
};

export type AiWriteOutcome = WriteOutcome<AiRunState>;
export type AiRollForward = RollForwardResult;

/** Append the ToolResult and unpause the run; with `hold`, take a free lease in the same write. */
export const writeAskResult = (states: AiRunStates, record: InteractionRecord, content: string, hold?: Hold): Promise<AiWriteOutcome> =>
  writeToolResult<ModelMessage, AiRunState>(states, record, content, hold, aiHistory);

/** A run paused on a question that is no longer pending gets the ToolResult its resolution stands for. */
export const rollForwardAiRun = (
  deps: { store: PendingStore; states: AiRunStates; index: PausedIndex },
  sessionId: string,
): Promise<AiRollForward> => rollForwardRun<ModelMessage, AiRunState>(deps, sessionId, aiHistory);
