/** `ask-user-kit/plugin/ai-sdk`: ask_user with exact resume inside the Vercel AI SDK (`ai` 7). */
export { askUserTool } from './ask-user-tool.js';
export { aiSdkRuntime, createAiSdkRuntime, type AiSdkRuntime, type AiSdkRuntimeOptions, type AiChatInput } from './ai-sdk-runtime.js';
export type { AiRunState, AiRunStatus } from './ai-run-state.js';
export type { StepSettings } from './model-step.js';
export { uiMessageSink, type UiMessageSinkOptions } from './ui-message-sink.js';
export { fromLoopTools, type FromLoopToolsOptions } from './loop-tools.js';
export type { ApprovalContext, ApprovalPolicy } from '../tools/approval-policy.js';
