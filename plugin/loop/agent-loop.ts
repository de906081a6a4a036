/**
 * The plugin's agent loop on the `openai` SDK, with exact resume. A run's history lives in the
 * PendingStore (`run:<sessionId>`), written before any question is announced; the loop is also the
 * RunHost the plugin core calls on continue, so a continue landing on any instance sharing the store —
 * or on this one after kill -9 — calls the model once with the original history plus the ToolResult.
 * With run state in a memory store (`stateStore`) the same loop runs in memory: after a restart the
 * card survives on a persistent store but says it cannot resume. The leases, pauses, answers, closings and
 * sweeps are the resume engine's (plugin/runs/run-engine.ts); this file brings the rounds and the messages.
 *
 * `agentRuntime(options)` hands the loop to `createAskUserKit({ runtime })`, which builds both at once.
 */
import type OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { ASK_USER_TOOL_NAME, askUserChatTool, type ToolLocale } from '../contract/tool-definition.js';
import type { Coordinator } from '../core/coordinator.js';
import type { RunHost } from '../core/host.js';
import type { ChatInput, RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import type { PendingStore } from '../store/types.js';
import { redactSecrets } from '../runs/failures.js';
import { PausedIndex } from '../runs/paused-index.js';
import { RunEngine, type RunStreamControls } from '../runs/run-engine.js';
import { RunLeases } from '../runs/run-lease.js';
import type { SweepReport } from '../runs/sweep.js';
import type { RollForwardResult } from '../runs/tool-result-writer.js';
import type { LoopTool } from '../tools/loop-tool.js';
import { chatRunFormat } from './chat-history.js';
import { callArgumentsOf, insertToolMessage, RunStates, type RunState } from './run-state.js';
import { withParts } from './history-extras.js';
import { runRounds, type ModelApi } from './run-rounds.js';
import { ToolRegistry } from './tool-registry.js';

export interface AgentLoopOptions {
  /** The injected client: `new OpenAI({ baseURL, apiKey })` for any OpenAI-compatible endpoint. */
  client: OpenAI;
  model: string;
  /** Where interactions live; also the run state, unless `stateStore` says otherwise. */
  store: PendingStore;
  /** The kit's coordinator (what the loop calls of it); `agentRuntime` passes the kit's own. */
  coordinator: Pick<Coordinator, 'intercept' | 'ask' | 'closeOpen' | 'expireDue' | 'auditRecovered' | 'admitChat' | 'cancelOpen' | 'log'>;
  /**
   * Ordinary tools, or a function giving the session's tools, read at the start of each turn (a live list,
   * e.g. MCP servers' tools after `notifications/tools/list_changed`). A tool with `needsApproval` runs only
   * once the user approved its call on a card (§12).
   */
  tools?: readonly LoopTool[] | ((sessionId: string) => readonly LoopTool[]);
  /** Tool names the model may see, ask_user included; a function decides per session. @default every tool and ask_user */
  allowedTools?: readonly string[] | ((sessionId: string) => readonly string[]);
  /** Model calls per user message, a resumed pause counting on (an answer given in the last round still gets one). @default 8 */
  maxRounds?: number;
  /** System message stored at the head of a new session's history. */
  system?: string;
  /** Language of ask_user's description. @default 'zh' */
  locale?: ToolLocale;
  /** Session lease lifetime; one heartbeat per process keeps its running leases alive. @default 15000 */
  leaseTtlMs?: number;
  /** How long a continue waits for the session lease before `session_busy`. @default 3000 */
  resumeWaitMs?: number;
  /**
   * A sweep continues a run stalled on an accepted answer (its process died between the claim and the
   * model call) once the run state is this old; younger ones may belong to a continue still in flight
   * on another instance. @default 10000
   */
  resumeStalledAfterMs?: number;
  /**
   * Which OpenAI API the model is called through: Chat Completions, or the Responses API (input items
   * built from the stored history on every call, no `previous_response_id`). @default 'chat'
   */
  api?: ModelApi;
  /**
   * Let the provider keep each Responses API turn (`store: true`). Off, every request says `store: false`,
   * so nothing of the run (users' answers included) is kept on the provider's side by default; a reasoning
   * model's reasoning then travels encrypted in the run's own history (`include:
   * ['reasoning.encrypted_content']`, dropped for a model whose endpoint refuses it). Responses API only.
   * @default false
   */
  responsesStore?: boolean;
  /** Extra request fields (temperature, …), passed to whichever API as given (`store` is `responsesStore`'s). */
  request?: Record<string, unknown>;
  /** Longest silence from the model endpoint (before its headers, between chunks) before the run ends with `model_timeout`. @default 120000 */
  modelIdleTimeoutMs?: number;
  /** Where run state lives: a `memory` store keeps runs in this process only. @default `store` */
  stateStore?: PendingStore;
  /** Failures of background work nobody awaits, and run failures the stream reports in fixed words. @default console.error with API-key-like tokens masked */
  onError?: (err: unknown) => void;
}

/** `chat`'s input: the caller, the session and message as received (checked by the chat), and the stream. */
export type { ChatInput } from '../core/runtime.js';

export type { SweepReport } from '../runs/sweep.js';

/**
 * What the loop used of the kit's coordinator before it had one name. @deprecated Use `Coordinator` from
 * `ask-user-kit/plugin`; `AgentLoopOptions['coordinator']` says which of its methods the loop calls.
 */
export type LoopCoordinator = Omit<RuntimeCore, 'store'>;

/** The loop is the kit's RunHost: it continues a paused run when its question is answered. */
export interface AgentLoop extends Omit<RunHost, keyof RunStreamControls>, RunStreamControls {
  /**
   * POST /api/chat: check the caller (the kit's `authorize`), session and message; then supersede an open
   * card, roll forward a half-resolved one, and run the message.
   */
  chat(input: ChatInput): Promise<void>;
  /** Finish a crash-interrupted answer of one session (idempotent). */
  rollForward(sessionId: string): Promise<RollForwardResult>;
  /** Every paused session: roll forward, and close overdue interactions as expired. Call at startup. */
  sweep(): Promise<SweepReport>;
  getRun(sessionId: string): Promise<RunState | undefined>;
  /** Settle background work; a sweep's detached runs stop (what they owe stays owed). */
  close(): Promise<void>;
}

/** Options of the loop the kit builds: everything but the store and the coordinator, which the kit gives. */
export type AgentRuntimeOptions = Omit<AgentLoopOptions, 'store' | 'coordinator'>;

/**
 * The loop as the kit's runtime: `createAskUserKit({ store, authorize, runtime: agentRuntime({ client,
 * model, tools }) })` builds the kit and the loop in one call; `kit.runtime` is the loop.
 */
export function agentRuntime(options: AgentRuntimeOptions): RuntimeFactory<AgentLoop> {
  return (coordinator) => createAgentLoop({ ...options, store: coordinator.store, coordinator });
}

export function createAgentLoop(options: AgentLoopOptions): AgentLoop {
  const {
    client,
    model,
    store,
    tools = [],
    allowedTools,
    maxRounds = 8,
    system,
    locale = 'zh',
    leaseTtlMs = 15_000,
    resumeWaitMs = 3_000,
    resumeStalledAfterMs = 10_000,
    request,
    modelIdleTimeoutMs,
    api = 'chat',
    responsesStore = false,
    stateStore = store,
    onError = (err) => console.error('[ask-user-kit loop]', redactSecrets(err instanceof Error ? (err.stack ?? err.message) : String(err))),
  } = options;
  const { coordinator } = options;
  // A fixed list is checked once, here; a function's list at each turn (a duplicate name fails that turn).
  const fixed = typeof tools === 'function' ? undefined : new ToolRegistry(tools);
  const registryFor = (sessionId: string) => fixed ?? new ToolRegistry((tools as (sessionId: string) => readonly LoopTool[])(sessionId));
  const states = new RunStates(stateStore);
  const leases = new RunLeases(stateStore, { ttlMs: leaseTtlMs });
  const index = new PausedIndex(stateStore);
  if (api !== 'chat' && api !== 'responses') throw new TypeError(`api must be 'chat' or 'responses', got ${JSON.stringify(api)}`);
  // One per loop: an endpoint that refuses encrypted reasoning is not asked for it again.
  const responses = { store: responsesStore === true, encryptedReasoning: true };
  const deps = { client, model, coordinator, maxRounds, request, modelIdleTimeoutMs, api, locale, responses };

  // Built once: its JSON Schema is the same for every call, and the SDK only reads it.
  const askTool = askUserChatTool(locale);
  const toolsFor = (sessionId: string, registry: ToolRegistry): ChatCompletionTool[] => {
    const allowed = typeof allowedTools === 'function' ? allowedTools(sessionId) : allowedTools;
    const ok = (name: string) => !allowed || allowed.includes(name);
    return [
      ...(ok(ASK_USER_TOOL_NAME) ? [askTool] : []),
      ...registry
        .list()
        .filter((t) => ok(t.name))
        .map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })),
    ];
  };

  const engine = new RunEngine({
    coordinator,
    store,
    states,
    leases,
    index,
    format: chatRunFormat(system),
    limit: { calls: maxRounds, words: 'rounds' },
    runTurn: ({ sessionId, sse, messages, used, save, alwaysAllowed }) => {
      const registry = registryFor(sessionId);
      return runRounds(
        { ...deps, registry },
        { sessionId, sse, messages, roundsUsed: used, tools: toolsFor(sessionId, registry), onRound: save, alwaysAllowed },
      );
    },
    approvals: {
      // The call as the history holds it (the user's edit written in), through the registry as any call.
      run: async (call, { sessionId, sse, messages }) => {
        const registry = registryFor(sessionId);
        const offered = new Set(toolsFor(sessionId, registry).map((t) => (t.type === 'function' ? t.function.name : '')));
        const args = callArgumentsOf(messages, call.toolCallId) ?? '{}';
        const r = await registry.run(
          { id: call.toolCallId, name: call.tool, arguments: args },
          { sessionId, signal: sse.signal, sse },
          offered,
        );
        const tool = withParts({ role: 'tool' as const, tool_call_id: r.toolCallId, content: r.content }, r.parts);
        return { content: r.content, isError: r.isError, into: (history) => insertToolMessage(history, tool) };
      },
      idempotent: (name, { sessionId }) => registryFor(sessionId).get(name)?.idempotent === true,
    },
    resumeWaitMs,
    resumeStalledAfterMs,
    onError,
  });
  return engine.asRuntime();
}
