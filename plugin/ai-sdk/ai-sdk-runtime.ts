/**
 * ask_user with exact resume inside the Vercel AI SDK. A host whose server already runs `streamText`
 * hands the kit `aiSdkRuntime({ model, tools })`: each session's `ModelMessage[]` lives in the kit's store
 * (`aisdk:<sessionId>`), saved before any question is announced, so a continue landing on any instance
 * sharing the store — or on this one after kill -9 — calls the model once with the original history plus
 * the exact ToolResult. Session leases, paused-run markers and failure wording are the plugin loop's own.
 */
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { ASK_USER_TOOL_NAME, type ToolLocale } from '../contract/tool-definition.js';
import { cancelAnswerFor } from '../contract/tool-result.js';
import { summarizeAnswer } from '../core/audit.js';
import type { RunHost, SseSink } from '../core/host.js';
import type { RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import type { PendingStore } from '../store/types.js';
import { redactSecrets, reportFailure, sendFailure } from '../loop/failures.js';
import { PausedIndex } from '../loop/paused-index.js';
import { LeaseLostError, RunLeases, SessionBusyError, sessionLease, type Hold } from '../loop/run-lease.js';
import { sweepMarkers, type SweepReport } from '../loop/sweep.js';
import { AiRunStates, emptyAiRun, type AiRunState } from './ai-run-state.js';
import { askUserTool } from './ask-user-tool.js';
import { awaitsModelAfter, findToolResult, resultText, stalledOnAnswer } from './history.js';
import type { StepSettings } from './model-step.js';
import { rollForwardAiRun, writeAskResult, type AiRollForward } from './result-writer.js';
import { runSteps, type StepsOutcome } from './run-steps.js';

export interface AiSdkRuntimeOptions {
  /** Any AI SDK language model: `openai('gpt-4.1-mini')`, `createOpenAICompatible({...})('qwen')`, … */
  model: LanguageModel;
  /**
   * The host's tools, or a function giving them per run (its session and chat stream, on which a tool may
   * announce a card of its own, as an MCP elicitation does); those with `execute` run inside the AI SDK as
   * usual. A tool named ask_user is replaced. `fromLoopTools(tools)` turns the plugin loop's tools into one.
   */
  tools?: ToolSet | ((sessionId: string, sse: SseSink) => ToolSet);
  /** Tool names the model may see, ask_user included; a function decides per session. @default every tool and ask_user */
  allowedTools?: readonly string[] | ((sessionId: string) => readonly string[]);
  /** The AI SDK's `instructions` (the system prompt) of every step. */
  system?: string;
  /** Model steps per user message, a resumed pause counting on (an answer given in the last step still gets one). @default 8 */
  maxSteps?: number;
  /** Language of ask_user's description. @default 'zh' */
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

export interface AiChatInput {
  sessionId: string;
  message: string;
  /** The chat stream; it ends with `done`. */
  sse: SseSink;
}

/** The kit's RunHost: it continues a paused run when its question is answered. Same surface as the plugin's AgentLoop. */
export interface AiSdkRuntime extends RunHost {
  chat(input: AiChatInput): Promise<void>;
  /** Finish a crash-interrupted answer of one session (idempotent). */
  rollForward(sessionId: string): Promise<AiRollForward>;
  /** Every paused session: roll forward, close overdue questions, continue what is owed. Call at startup. */
  sweep(): Promise<SweepReport>;
  getRun(sessionId: string): Promise<AiRunState | undefined>;
  close(): Promise<void>;
}

/** `createAskUserKit({ store, authorize, runtime: aiSdkRuntime({ model, tools }) })`; `kit.runtime` is the runtime. */
export function aiSdkRuntime(options: AiSdkRuntimeOptions): RuntimeFactory<AiSdkRuntime> {
  return (core: RuntimeCore) => createAiSdkRuntime(core, options);
}

export function createAiSdkRuntime(core: RuntimeCore, options: AiSdkRuntimeOptions): AiSdkRuntime {
  const {
    model,
    tools = {},
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
    stateStore = core.store,
    onError = (err) =>
      console.error('[ask-user-kit ai-sdk]', redactSecrets(err instanceof Error ? (err.stack ?? err.message) : String(err))),
  } = options;
  if (!(resumeStalledAfterMs > resumeWaitMs)) {
    // Younger than a continue's wait for the lease, a stall may be a live continue about to take it.
    throw new TypeError(`resumeStalledAfterMs (${resumeStalledAfterMs}) must be longer than resumeWaitMs (${resumeWaitMs})`);
  }
  const { store } = core;
  const states = new AiRunStates(stateStore, keyPrefix);
  const leases = new RunLeases(stateStore, { ttlMs: leaseTtlMs });
  // Its own markers: the plugin loop's sweep must never take this runtime's sessions for its own.
  const index = new PausedIndex(stateStore, `${keyPrefix}paused:`);
  const deps = {
    model,
    coordinator: core,
    maxSteps,
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

  const unlist = (sessionId: string, version: string | undefined) =>
    version ? index.remove(sessionId, version).catch(onError) : undefined;

  const { acquire, letGo } = sessionLease(states, leases, emptyAiRun, onError);

  /** Run steps under `hold`, then persist and announce the outcome. Always ends the stream with `done`. */
  async function drive(hold: Hold, sse: SseSink, start: AiRunState): Promise<void> {
    const { sessionId } = hold;
    const messages: ModelMessage[] = [...start.messages];
    const outcome: StepsOutcome = await runSteps(deps, {
      sessionId,
      sse,
      messages,
      stepsUsed: start.step,
      tools: toolsFor(sessionId, sse),
      onStep: async (msgs, step) => {
        await states.update(sessionId, (cur) => ({ ...hold.check(cur), messages: [...msgs], step, status: 'running', owed: undefined }));
      },
    });
    if (hold.lost) return sendFailure(sse, 'session_busy', new LeaseLostError(sessionId).message);
    if (outcome.kind === 'paused') {
      const { record, event, step } = outcome;
      // Listed before the pause is saved, so a holder killed right after the save is still swept.
      const listed = (await index.add(sessionId, { requestId: record.requestId }).catch(onError)) ?? undefined;
      // Durable first, the lease let go in the same write: only a run that is on disk may be announced.
      await states.update(sessionId, (cur) => ({
        ...hold.check(cur),
        messages,
        step,
        status: 'paused',
        paused: { requestId: record.requestId, toolCallId: record.toolCallId, step },
        owed: undefined,
        lease: undefined,
        listed,
      }));
      hold.settled = true;
      sse.send('user_input_required', event);
      sse.send('done', { reason: 'paused' });
      return;
    }
    // An outcome settles what was owed, except an abort before the model answered: a sweep may still continue it.
    let unlisted: string | undefined;
    await states.update(sessionId, (cur) => {
      const base = hold.check(cur);
      const owed = outcome.kind === 'aborted' ? base.owed : undefined;
      unlisted = owed ? undefined : base.listed;
      return {
        ...base,
        messages,
        step: outcome.step,
        status: 'idle',
        paused: undefined,
        owed,
        lease: undefined,
        listed: owed ? base.listed : undefined,
      };
    });
    hold.settled = true;
    await unlist(sessionId, unlisted);
    if (outcome.kind === 'completed') sse.send('done', { reason: 'completed' });
    else if (outcome.kind === 'max_steps')
      sendFailure(sse, 'max_rounds', `the model used all ${maxSteps} steps without a final answer; send a new message to go on`);
    else if (outcome.kind === 'error') reportFailure(sse, outcome.error, onError);
    else sse.end();
  }

  function refuse(sse: SseSink, err: unknown): void {
    if (err instanceof SessionBusyError) sendFailure(sse, 'session_busy', err.message);
    else reportFailure(sse, err, onError);
  }

  /** An answer always reaches the model: a question asked in the last step still gets one after it. */
  const afterAnswer = (state: AiRunState): AiRunState => ({ ...state, step: Math.min(state.step, maxSteps - 1) });

  const host: RunHost = {
    async isResumable(record) {
      const state = (await states.entry(record.sessionId))?.value;
      return state?.status === 'paused' && state.paused?.requestId === record.requestId && state.paused.toolCallId === record.toolCallId;
    },
    async resume({ record, answer, toolResultContent, sse }) {
      const hold = leases.mint(record.sessionId);
      try {
        // The answer and, when the session is free, the lease go in one write.
        const out = await writeAskResult(states, record, toolResultContent, answer.cancelled ? undefined : hold);
        if (!out.known) {
          sendFailure(sse, 'not_resumable', 'this server has no run paused on that question; start the task again');
          return;
        }
        await store.markToolResultWritten(record.requestId);
        sse.send('tool_result', { toolCallId: record.toolCallId, name: ASK_USER_TOOL_NAME, content: toolResultContent, isError: false });
        await unlist(record.sessionId, out.unlisted);
        if (answer.cancelled) {
          sse.send('done', { reason: 'cancelled' });
          return;
        }
        let state = out.took ? out.state : undefined;
        if (!state) {
          try {
            state = (await acquire(hold, resumeWaitMs)).state;
          } catch (err) {
            return refuse(sse, err);
          }
        }
        if (!awaitsModelAfter(state, record.toolCallId)) {
          sendFailure(
            sse,
            'session_busy',
            'the session moved on (a newer message already ran after this answer); its answer is in the history',
          );
          return;
        }
        await drive(hold, sse, afterAnswer(state));
      } catch (err) {
        reportFailure(sse, err, onError);
      } finally {
        await letGo(hold);
      }
    },
    async closed({ record, toolResultContent }) {
      const out = await writeAskResult(states, record, toolResultContent);
      await store.markToolResultWritten(record.requestId);
      await unlist(record.sessionId, out.unlisted);
    },
  };

  async function rollForward(sessionId: string): Promise<AiRollForward> {
    const result = await rollForwardAiRun({ store, states, index }, sessionId);
    // Its claimer may have died before its audit line: written here (at least once, never none).
    if (result.kind === 'rolled_forward' && result.wrote && result.record?.resolution) core.auditRecovered(result.record);
    if (result.kind !== 'needs_expiry') return result;
    const closed = await core.expireDue(sessionId);
    const after = await rollForwardAiRun({ store, states, index }, sessionId);
    return closed && after.kind === 'nothing' ? { kind: 'expired', record: closed } : after;
  }

  const userTurn = (sessionId: string, current: AiRunState | undefined, message: string): AiRunState => {
    const base = current ?? emptyAiRun(sessionId);
    const messages: ModelMessage[] = [...base.messages, { role: 'user', content: message }];
    return { ...base, status: 'running', paused: undefined, owed: undefined, listed: undefined, step: 0, messages };
  };

  async function chat({ sessionId, message, sse }: AiChatInput): Promise<void> {
    const hold = leases.mint(sessionId);
    try {
      // A run at rest takes the lease and the message in one write; its stale marker goes.
      let before: AiRunState | undefined;
      const taken = await acquire(hold, 0, (cur) => {
        before = cur;
        return !cur || cur.status === 'idle' ? userTurn(sessionId, cur, message) : undefined;
      });
      let start: AiRunState | undefined = taken.state;
      if (taken.prepared) await unlist(sessionId, before?.listed);
      else start = await closeBefore(hold, sse, message);
      if (start) await drive(hold, sse, start);
    } catch (err) {
      refuse(sse, err);
    } finally {
      await letGo(hold);
      sse.end();
    }
  }

  /** A run paused on a card: close the card (its ToolResult goes in), roll forward a half-resolved one, then start the turn. */
  async function closeBefore(hold: Hold, sse: SseSink, message: string): Promise<AiRunState | undefined> {
    const { sessionId } = hold;
    const closed = await core.supersede(sessionId);
    if (closed?.resolution) {
      const { status, at } = closed.resolution;
      sse.send('interaction_resolved', {
        requestId: closed.requestId,
        toolCallId: closed.toolCallId,
        status,
        at: new Date(at).toISOString(),
        ...summarizeAnswer(closed.form, cancelAnswerFor(closed.form)),
      });
    }
    const rolled = await rollForward(sessionId);
    const written = closed ? await states.get(sessionId) : undefined;
    const closedPart = closed && written ? findToolResult(written.messages, closed.toolCallId) : undefined;
    if (closed && closedPart) {
      sse.send('tool_result', { toolCallId: closed.toolCallId, name: ASK_USER_TOOL_NAME, ...resultText(closedPart) });
    } else if (rolled.kind === 'rolled_forward' && rolled.wrote) {
      sse.send('tool_result', { toolCallId: rolled.toolCallId, name: ASK_USER_TOOL_NAME, content: rolled.content, isError: false });
    }
    if (rolled.kind === 'pending') {
      sendFailure(sse, 'session_busy', 'a question of this session is still being answered; wait for its stream to end');
      return undefined;
    }
    let unlisted: string | undefined;
    const start = await states.update(sessionId, (cur) => {
      unlisted = hold.check(cur).listed;
      return userTurn(sessionId, cur, message);
    });
    await unlist(sessionId, unlisted);
    return start;
  }

  /** Aborted by close(): stops a sweep and the runs it continues. */
  const closing = new AbortController();
  const detachedSink = (): SseSink => ({
    send() {},
    comment() {},
    end() {},
    signal: closing.signal,
    get closed() {
      return closing.signal.aborted;
    },
  });

  async function resumeStalled(sessionId: string, seen: AiRunState | undefined): Promise<boolean> {
    if (!stalledOnAnswer(seen) || Date.now() - seen!.owed!.since < resumeStalledAfterMs) return false;
    const hold = leases.mint(sessionId);
    try {
      let state: AiRunState;
      try {
        state = (await acquire(hold, 0)).state;
      } catch (err) {
        if (err instanceof SessionBusyError) return false;
        throw err;
      }
      // Taking the lease is the only write since `seen`: anything else means someone else went on.
      if (!stalledOnAnswer(state) || state.rev !== seen!.rev + 1) return false;
      await drive(hold, detachedSink(), afterAnswer(state));
      return true;
    } finally {
      await letGo(hold);
    }
  }

  const isRunning = async (run: AiRunState | undefined) => run?.status === 'running' && (await leases.holds(run.lease));

  let sweeping: Promise<SweepReport> | undefined;
  const sweep = (): Promise<SweepReport> => {
    sweeping ??= sweepMarkers<AiRunState>({
      index,
      states,
      getMany: (ids) => store.getMany(ids),
      rollForward,
      resumeStalled,
      isRunning,
      needsSweep: (run) => run?.status === 'paused' || stalledOnAnswer(run),
      signal: closing.signal,
      onError,
      now: Date.now,
    }).finally(() => (sweeping = undefined));
    return sweeping;
  };

  return {
    ...host,
    chat,
    rollForward,
    sweep,
    getRun: (sessionId) => states.get(sessionId),
    async close() {
      closing.abort();
      await sweeping?.catch(() => undefined);
      leases.close();
    },
  };
}
