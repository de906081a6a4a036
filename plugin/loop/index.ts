/**
 * Public entry of `ask-user-kit/plugin/loop`: the agent loop with exact resume, as the kit's runtime
 * (`agentRuntime`) or on its own (`createAgentLoop`), its tools, and its failures. Its parts (rounds, run
 * state) and the resume engine it runs on (plugin/runs/) are internal and may change.
 */
export {
  agentRuntime,
  createAgentLoop,
  type AgentLoop,
  type AgentLoopOptions,
  type AgentRuntimeOptions,
  type ChatInput,
  type LoopCoordinator,
  type SweepReport,
} from './agent-loop.js';
export type { ModelApi } from './run-rounds.js';
export { ModelCallError, DEFAULT_MODEL_IDLE_TIMEOUT_MS, type ModelErrorCode } from '../runs/model-call.js';
export { ToolRegistry, type ToolCallResult } from './tool-registry.js';
export type { LoopTool, ToolOutput, ToolRunContext } from '../tools/loop-tool.js';
export type { ApprovalContext, ApprovalPolicy } from '../tools/approval-policy.js';
export { describeToolContent, type ToolContentPart } from '../tools/tool-content.js';
export type { RunState, RunStatus, PausedOn } from './run-state.js';
export { maskedLogger, redactSecrets, type LoopErrorCode } from '../runs/failures.js';
