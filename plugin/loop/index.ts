/** The plugin's agent loop with exact resume, reusable by hosts: one factory and the pieces it is made of. */
export { agentRuntime, createAgentLoop, type AgentLoop, type AgentLoopOptions, type AgentRuntimeOptions, type ChatInput, type SweepReport } from './agent-loop.js';
export { runRounds, type LoopCoordinator, type RoundsDeps, type RoundsInput, type RoundsOutcome } from './run-rounds.js';
export { streamModelRound, ModelCallError, DEFAULT_MODEL_IDLE_TIMEOUT_MS, type ModelErrorCode, type ModelRoundInput, type ModelRoundOutput } from './model-round.js';
export { ToolCallAccumulator, type AccumulatedToolCall, type ToolCallDelta } from './tool-call-accumulator.js';
export { ToolRegistry, parseToolArguments, type LoopTool, type ToolOutput, type ToolCallResult, type ToolRunContext } from './tool-registry.js';
export {
  RunStates,
  StateConflictError,
  emptyRun,
  hasToolResult,
  insertToolResult,
  unansweredToolCalls,
  type RunState,
  type RunStatus,
  type PausedOn,
} from './run-state.js';
export { SessionFence, SessionBusyError, LeaseLostError, type Lease, type SessionFenceOptions, type TakeOver } from './session-fence.js';
export { PausedIndex } from './paused-index.js';
export { contentForResolution, writeToolResult, rollForwardRun, awaitsModelAfter, stalledOnAnswer, unlist, type RollForwardResult } from './tool-result-writer.js';
export { maskedLogger, publicFailure, redactSecrets, reportFailure, sendFailure, type LoopErrorCode } from './failures.js';
