/**
 * ask_user with exact resume inside the Vercel AI SDK. A host whose server already runs `streamText`
 * hands the kit `aiSdkRuntime({ model, tools })`: each session's `ModelMessage[]` lives in the kit's store
 * (`aisdk:<sessionId>`), saved before any question is announced, so a continue landing on any instance
 * sharing the store — or on this one after kill -9 — calls the model once with the original history plus
 * the exact ToolResult. Everything around the model calls (leases, pauses, answers, closings, sweeps,
 * failure wording) is the resume engine's (plugin/runs/run-engine.ts), as for the plugin loop; this file
 * brings the AI SDK's step loop and its message format.
 */
import type { LanguageModel, ToolSet } from 'ai';
import { ASK_USER_TOOL_NAME, type ToolLocale } from '../contract/tool-definition.js';
import type { Coordinator } from '../core/coordinator.js';
import type { RunHost, SseSink } from '../core/host.js';
import type { ChatInput, RuntimeFactory } from '../core/runtime.js';
import type { PendingStore } from '../store/types.js';
import { redactSecrets } from '../runs/failures.js';
import { PausedIndex } from '../runs/paused-index.js';
import { RunEngine, type RunStreamControls } from '../runs/run-engine.js';
import { RunLeases } from '../runs/run-lease.js';
import type { SweepReport } from '../runs/sweep.js';
import type { RollForwardResult } from '../runs/tool-result-writer.js';
import { AiRunStates, type AiRunState } from './ai-run-state.js';
import { askUserTool } from './ask-user-tool.js';
import type { StepSettings } from './model-step.js';
import { aiRunFormat } from './result-writer.js';
import { runSteps } from './run-steps.js';
import { policyOf, runAiTool } from './approval-tools.js';
import { callIdsOf, callInputOf, insertToolResult, resultText } from './history.js';
import type { ApprovalPolicy } from '../tools/approval-policy.js';

export interface AiSdkRuntimeOptions {
  /** Any AI SDK language model: `openai('gpt-4.1-mini')`, `createOpenAICompatible({...})('qwen')`, … */
  model: LanguageModel;
  /**
   * The host's tools, or a function giving them per run (its session and chat stream, on which a tool may
   * announce a card of its own, as an MCP elicitation does); those with `execute` run inside the AI SDK as
   * usual. A tool named ask_user is replaced. `fromLoopTools(tools)` turns the plugin loop's tools into one.
   */
  tools?: ToolSet | ((sessionId: string, sse: SseSink) => ToolSet);
  /**
   * The kit's approval fields (§12) of tools by name: `editable`, `allowAlways`, `describe`, `redact`,
   * `idempotent`, and `needsApproval` for a tool that has no AI SDK `needsApproval` of its own. A tool's own
   * AI SDK `needsApproval` is honoured as it is; tools made by `fromLoopTools` bring their LoopTool's fields.
   */
  approval?: Record<string, ApprovalPolicy>;
  /** Tool names the model may see, ask_user included; a function decides per session. @default every tool and ask_user */
  allowedTools?: readonly string[] | ((sessionId: string) => readonly string[]);
  /** The AI SDK's `instructions` (the system prompt) of every step. */
  system?: string;
  /** Model steps per user message, a resumed pause counting on (an answer given in the last step still gets one). @default 8 */
  maxSteps?: number;
  /** Language of ask_user's description and of the approval card's title. @default 'zh' */
  locale?: ToolLocale;
  /** Session lease lifetime; one heartbeat per process keeps its leases alive. @default 15000 */
  leaseTtlMs?: number;
  /** How long a continue waits for the session lease before `session_busy`. @default 3000 */
  resumeWaitMs?: number;
  /** A sweep continues a run stalled on an accepted answer once it is this old. @default 10000 */
  resumeStalledAfterMs?: number;
  /** Longest silence from the model before the step ends with `model_timeout`. @default 120000 */
  modelIdleTimeoutMs?: number;
  /** Further `streamText` options passed through as given (temperature, maxRetries, providerOptions, …). */
  settings?: StepSettings;
  /** Where run states live: a `memory` store keeps runs in this process only (the card then survives a restart, the run not). @default the kit's store */
  stateStore?: PendingStore;
  /** Key prefix of the run states in the store; markers go under `<prefix>paused:`. @default 'aisdk:' */
  keyPrefix?: string;
  /** Failures nobody awaits, and run failures the stream reports in fixed words. @default console.error, API keys masked */
  onError?: (err: unknown) => void;
}

/** `chat`'s input: the caller, the session and message as received (checked by the chat), and the stream. */
export type AiChatInput = ChatInput;

/** The kit's RunHost: it continues a paused run when its question is answered. Same surface as the plugin's AgentLoop. */
export interface AiSdkRuntime extends Omit<RunHost, keyof RunStreamControls>, RunStreamControls {
  chat(input: AiChatInput): Promise<void>;
  /** Finish a crash-interrupted answer of one session (idempotent). */
  rollForward(sessionId: string): Promise<RollForwardResult>;
  /** Every paused session: roll forward, close overdue questions, continue what is owed. Call at startup. */
  sweep(): Promise<SweepReport>;
  getRun(sessionId: string): Promise<AiRunState | undefined>;
  close(): Promise<void>;
}

/** `createAskUserKit({ store, authorize, runtime: aiSdkRuntime({ model, tools }) })`; `kit.runtime` is the runtime. */
export function aiSdkRuntime(options: AiSdkRuntimeOptions): RuntimeFactory<AiSdkRuntime> {
  return (coordinator) => createAiSdkRuntime(coordinator, options);
}

/** The runtime for a host that wires the kit's coordinator itself (`coordinator.store` holds its questions). */
export function createAiSdkRuntime(
  coordinator: Pick<
    Coordinator,
    'store' | 'intercept' | 'ask' | 'closeOpen' | 'expireDue' | 'auditRecovered' | 'admitChat' | 'cancelOpen' | 'log'
  >,
  options: AiSdkRuntimeOptions,
): AiSdkRuntime {
  const {
    model,
    tools = {},
    approval = {},
    allowedTools,
    system,
    maxSteps = 8,
    locale = 'zh',
    leaseTtlMs = 15_000,
    resumeWaitMs = 3_000,
    resumeStalledAfterMs = 10_000,
    modelIdleTimeoutMs,
    settings,
    keyPrefix = 'aisdk:',
    stateStore = coordinator.store,
    onError = (err) =>
      console.error('[ask-user-kit ai-sdk]', redactSecrets(err instanceof Error ? (err.stack ?? err.message) : String(err))),
  } = options;
  const states = new AiRunStates(stateStore, keyPrefix);
  const leases = new RunLeases(stateStore, { ttlMs: leaseTtlMs });
  // Its own markers: the plugin loop's sweep must never take this runtime's sessions for its own.
  const index = new PausedIndex(stateStore, `${keyPrefix}paused:`);
  const policyFor = (name: string, tool: object | undefined) => policyOf(tool, Object.hasOwn(approval, name) ? approval[name] : undefined);
  const deps = {
    model,
    coordinator,
    maxSteps,
    locale,
    policyOf: policyFor,
    ...(system ? { instructions: system } : {}),
    ...(settings ? { settings } : {}),
    ...(modelIdleTimeoutMs !== undefined ? { idleTimeoutMs: modelIdleTimeoutMs } : {}),
  };

  const askTool = askUserTool(locale);
  const toolsFor = (sessionId: string, sse: SseSink): ToolSet => {
    const allowed = typeof allowedTools === 'function' ? allowedTools(sessionId) : allowedTools;
    const all: ToolSet = { ...(typeof tools === 'function' ? tools(sessionId, sse) : tools), [ASK_USER_TOOL_NAME]: askTool };
    return allowed ? Object.fromEntries(Object.entries(all).filter(([name]) => allowed.includes(name))) : all;
  };

  const engine = new RunEngine({
    coordinator,
    store: coordinator.store,
    states,
    leases,
    index,
    format: aiRunFormat,
    limit: { calls: maxSteps, words: 'steps' },
    runTurn: ({ sessionId, sse, messages, used, save, alwaysAllowed }) =>
      runSteps(deps, { sessionId, sse, messages, stepsUsed: used, tools: toolsFor(sessionId, sse), onStep: save, alwaysAllowed }),
    approvals: {
      // The call as the history holds it (the user's edit written in), run as streamText would have run it.
      run: async (call, { sessionId, sse, messages }) => {
        const tools = toolsFor(sessionId, sse);
        const tool = Object.hasOwn(tools, call.tool) ? tools[call.tool] : undefined;
        const before = messages.slice(
          0,
          Math.max(
            0,
            messages.findIndex((m) => callIdsOf(m).includes(call.toolCallId)),
          ),
        );
        const part = await runAiTool(call.tool, tool, callInputOf(messages, call.toolCallId) ?? {}, {
          toolCallId: call.toolCallId,
          messages: before,
          signal: sse.signal,
        });
        return { ...resultText(part), into: (history) => insertToolResult(history, part) };
      },
      idempotent: (name, { sessionId, sse }) => {
        const tools = toolsFor(sessionId, sse);
        return policyFor(name, Object.hasOwn(tools, name) ? tools[name] : undefined)?.idempotent === true;
      },
    },
    resumeWaitMs,
    resumeStalledAfterMs,
    onError,
  });
  return engine.asRuntime();
}
