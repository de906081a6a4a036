/**
 * The AI SDK's ModelMessage history as the shared run skeleton (plugin/loop/run-host.ts) reads and writes
 * it: where an ask_user ToolResult goes, what a closed card's result says, when the model is owed a call.
 */
import type { ModelMessage } from 'ai';
import type { Hold } from '../loop/run-lease.js';
import { writeToolResult, type WriteOutcome } from '../loop/tool-result-writer.js';
import type { InteractionRecord } from '../store/types.js';
import type { AiRunState, AiRunStates } from './ai-run-state.js';
import {
  askUserResultPart,
  awaitsModelAfter,
  findToolResult,
  hasToolResult,
  insertToolResult,
  resultText,
  unansweredToolCalls,
} from './history.js';
import type { RunHistory } from '../loop/run-host.js';

/** The AI SDK's history: an ask_user result is a tool-result part at its call's place. */
export const aiRunHistory: RunHistory<ModelMessage, AiRunState> = {
  hasToolResult,
  unansweredToolCalls,
  withToolResult: (messages, toolCallId, content) => insertToolResult(messages, askUserResultPart(toolCallId, content)),
  userMessage: (text) => ({ role: 'user', content: text }),
  resultOf(messages, toolCallId) {
    const part = findToolResult(messages, toolCallId);
    return part ? resultText(part) : undefined;
  },
  awaitsModelAfter,
};

export type AiWriteOutcome = WriteOutcome<AiRunState>;

/** Append the ToolResult and unpause the run; with `hold`, take a free lease in the same write. */
export const writeAskResult = (states: AiRunStates, record: InteractionRecord, content: string, hold?: Hold): Promise<AiWriteOutcome> =>
  writeToolResult<ModelMessage, AiRunState>(states, record, content, hold, aiRunHistory);
