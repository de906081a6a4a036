/**
 * The loop's run format: its history is Chat Completions messages (Responses extras kept on them,
 * history-extras.ts), an ask_user result a `tool` message at its call's place, and its call count `round`.
 * The engine (plugin/runs/run-engine.ts) reads and writes the loop's runs through it.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { InteractionRecord } from '../store/types.js';
import type { RunFormat } from '../runs/run-format.js';
import type { Hold } from '../runs/run-lease.js';
import { writeToolResult, type WriteOutcome } from '../runs/tool-result-writer.js';
import {
  emptyRun,
  hasToolResult,
  insertToolResult,
  unansweredToolCalls,
  withCallArguments,
  type RunState,
  type RunStates,
} from './run-state.js';

/** True when the run's history ends with the tool results of a turn that includes `toolCallId`, all answered. */
export function awaitsModelAfter(state: RunState | undefined, toolCallId: string): boolean {
  if (!state || state.status === 'paused') return false;
  const msgs = state.messages;
  if (msgs.at(-1)?.role !== 'tool' || unansweredToolCalls(msgs).length > 0) return false;
  for (let i = msgs.length - 1; i >= 0 && msgs[i]!.role === 'tool'; i--) {
    if ((msgs[i] as { tool_call_id: string }).tool_call_id === toolCallId) return true;
  }
  return false;
}

/** The loop's run format; a new session's history starts with `system` when there is one. */
export function chatRunFormat(system?: string): RunFormat<ChatCompletionMessageParam, RunState> {
  return {
    newRun: (sessionId) => emptyRun(sessionId, system),
    callsOf: (run) => run.round,
    withCalls: (run, round) => ({ ...run, round, ...(run.paused ? { paused: { ...run.paused, round } } : {}) }),
    userMessage: (text) => ({ role: 'user', content: text }),
    hasToolResult,
    unansweredToolCalls,
    // A Chat Completions tool message names no tool: the call's id ties it to its call.
    withToolResult: (messages, toolCallId, content) => insertToolResult(messages, toolCallId, content),
    withCallArguments,
    awaitsModelAfter,
  };
}

/** Append the ToolResult and unpause the run; with `hold`, take a free lease in the same write. */
export const writeAskResult = (
  states: RunStates,
  record: InteractionRecord,
  content: string,
  hold?: Hold,
): Promise<WriteOutcome<RunState>> => writeToolResult(chatRunFormat(), states, record, content, hold);
