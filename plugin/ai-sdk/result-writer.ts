/**
 * The AI SDK runtime's run format: its history is the AI SDK's ModelMessages, an ask_user result a
 * tool-result part at its call's place, and its call count `step`. The engine (plugin/runs/run-engine.ts)
 * reads and writes the runtime's runs through it.
 */
import type { ModelMessage } from 'ai';
import type { RunFormat } from '../runs/run-format.js';
import type { Hold } from '../runs/run-lease.js';
import { writeToolResult, type WriteOutcome } from '../runs/tool-result-writer.js';
import type { InteractionRecord } from '../store/types.js';
import { emptyAiRun, type AiRunState, type AiRunStates } from './ai-run-state.js';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import { awaitsModelAfter, hasToolResult, insertToolResult, toolResultPart, unansweredToolCalls, withCallArguments } from './history.js';

/** The AI SDK's run format: an ask_user result is a tool-result part at its call's place. */
export const aiRunFormat: RunFormat<ModelMessage, AiRunState> = {
  newRun: emptyAiRun,
  callsOf: (run) => run.step,
  withCalls: (run, step) => ({ ...run, step, ...(run.paused ? { paused: { ...run.paused, step } } : {}) }),
  userMessage: (text) => ({ role: 'user', content: text }),
  hasToolResult,
  unansweredToolCalls,
  withToolResult: (messages, toolCallId, content, call) =>
    insertToolResult(messages, toolResultPart(toolCallId, call?.name ?? ASK_USER_TOOL_NAME, content, call?.isError ?? false)),
  withCallArguments,
  awaitsModelAfter,
};

export type AiWriteOutcome = WriteOutcome<AiRunState>;

/** Append the ToolResult and unpause the run; with `hold`, take a free lease in the same write. */
export const writeAskResult = (states: AiRunStates, record: InteractionRecord, content: string, hold?: Hold): Promise<AiWriteOutcome> =>
  writeToolResult(aiRunFormat, states, record, content, hold);
