/**
 * The plugin's agent loop on the `openai` SDK, with exact resume. A run's history lives in the
 * PendingStore (`run:<sessionId>`), written before any question is announced; the loop is also the
 * RunHost the plugin core calls on continue, so a continue landing on any instance sharing the store —
 * or on this one after kill -9 — calls the model once with the original history plus the ToolResult.
 * With run state in a memory store (`stateStore`) the same loop runs in memory: after a restart the
 * card survives on a persistent store but says it cannot resume.
 *
 * `agentRuntime(options)` hands the loop to `createAskUserKit({ runtime })`, which builds both at once.
 */
import type OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { ASK_USER_TOOL_NAME, askUserChatTool, type ToolLocale } from '../contract/tool-definition.js';
import { cancelAnswerFor } from '../contract/tool-result.js';
import { summarizeAnswer } from '../core/audit.js';
import type { RunHost, SseSink } from '../core/host.js';
import type { RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import type { PendingStore } from '../store/types.js';
import { PausedIndex } from './paused-index.js';
import { emptyRun, RunStates, type RunState } from './run-state.js';
import { runRounds, type LoopCoordinator, type ModelApi, type RoundsOutcome } from './run-rounds.js';
import { Hold, LeaseLostError, RunLeases, SessionBusyError, sessionLease } from './run-lease.js';
import { ToolRegistry, type LoopTool } from './tool-registry.js';
import { awaitsModelAfter, rollForwardRun, stalledOnAnswer, writeToolResult, type RollForwardResult } from './tool-result-writer.js';
import { redactSecrets, reportFailure, sendFailure } from './failures.js';
import { sweepMarkers, type SweepReport } from './sweep.js';

export interface AgentLoopOptions {
  /** The injected client: `new OpenAI({ baseURL, apiKey })` for any OpenAI-compatible endpoint. */
  client: OpenAI;
  model: string;
  /** Where interactions live; also the run state, unless `stateStore` says otherwise. */
  store: PendingStore;
  /** The core's coordinator; `agentRuntime` passes the kit's own. */
  coordinator: LoopCoordinator;
  /** Ordinary tools. */
  tools?: readonly LoopTool[];
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
  /** Extra request fields (temperature, …), passed to whichever API as given. */
  request?: Record<string, unknown>;
  /** Longest silence from the model endpoint (before its headers, between chunks) before the run ends with `model_timeout`. @default 120000 */
  modelIdleTimeoutMs?: number;
  /** Where run state lives: a `memory` store keeps runs in this process only. @default `store` */
  stateStore?: PendingStore;
  /** Failures of background work nobody awaits, and run failures the stream reports in fixed words. @default console.error with API-key-like tokens masked */
  onError?: (err: unknown) => void;
}

export interface ChatInput {
  sessionId: string;
  message: string;
  /** The chat stream; it ends with `done`. */
  sse: SseSink;
}

export type { SweepReport } from './sweep.js';

/** The loop is the kit's RunHost: it continues a paused run when its question is answered. */
export interface AgentLoop extends RunHost {
  /** POST /api/chat: supersede an open card, roll forward a half-resolved one, run the message. */
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
  return (core: RuntimeCore) => createAgentLoop({ ...options, store: core.store, coordinator: core });
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
    stateStore = store,
    onError = (err) => console.error('[ask-user-kit loop]', redactSecrets(err instanceof Error ? (err.stack ?? err.message) : String(err))),
  } = options;
  if (!(resumeStalledAfterMs > resumeWaitMs)) {
    // Younger than a continue's wait for the lease, a stall may be a live continue about to take it.
    throw new TypeError(`resumeStalledAfterMs (${resumeStalledAfterMs}) must be longer than resumeWaitMs (${resumeWaitMs})`);
  }
  const { coordinator } = options;
  const registry = new ToolRegistry(tools);
  const states = new RunStates(stateStore);
  const leases = new RunLeases(stateStore, { ttlMs: leaseTtlMs });
  const index = new PausedIndex(stateStore);
  if (api !== 'chat' && api !== 'responses') throw new TypeError(`api must be 'chat' or 'responses', got ${JSON.stringify(api)}`);
  const deps = { client, model, registry, coordinator, maxRounds, request, modelIdleTimeoutMs, api, locale };

  // Built once: its JSON Schema is the same for every call, and the SDK only reads it.
  const askTool = askUserChatTool(locale);
  const toolsFor = (sessionId: string): ChatCompletionTool[] => {
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

  const unlist = (sessionId: string, version: string | undefined) =>
    version ? index.remove(sessionId, version).catch(onError) : undefined;

  const { acquire, letGo } = sessionLease(states, leases, (sessionId) => emptyRun(sessionId, system), onError);

  /** Run rounds under `hold`, then persist and announce the outcome. Always ends the stream with `done`. */
  async function drive(hold: Hold, sse: SseSink, start: RunState): Promise<void> {
    const { sessionId } = hold;
    const messages = [...start.messages];
    const outcome: RoundsOutcome = await runRounds(deps, {
      sessionId,
      sse,
      messages,
      roundsUsed: start.round,
      tools: toolsFor(sessionId),
      onRound: async (msgs, round) => {
        await states.update(sessionId, (cur) => ({ ...hold.check(cur), messages: [...msgs], round, status: 'running', owed: undefined }));
      },
    });
    // Another runner took the session over (this one's lease lapsed): its state is theirs now.
    if (hold.lost) return sendFailure(sse, 'session_busy', new LeaseLostError(sessionId).message);
    if (outcome.kind === 'paused') {
      const { record, event, round } = outcome;
      // Listed before the pause is saved, so a holder killed right after the save is still found by a
      // sweep (a listed run that never paused is dropped by the sweep's own check). The marker only guides
      // sweeps: failing to list must not turn a saved pause into an error shown instead of the card.
      const listed = (await index.add(sessionId, { requestId: record.requestId }).catch(onError)) ?? undefined;
      // Durable first, the lease let go in the same write: only a run that is on disk may be announced.
      await states.update(sessionId, (cur) => ({
        ...hold.check(cur),
        messages,
        round,
        status: 'paused',
        paused: { requestId: record.requestId, toolCallId: record.toolCallId, round },
        owed: undefined,
        lease: undefined,
        listed,
      }));
      hold.settled = true;
      sse.send('user_input_required', event);
      sse.send('done', { reason: 'paused' });
      return;
    }
    // An outcome settles what was owed (an error is reported once, not retried by every sweep), except an
    // abort before the first round came back: the model never answered, so a sweep may still continue it.
    let unlisted: string | undefined;
    await states.update(sessionId, (cur) => {
      const base = hold.check(cur);
      const owed = outcome.kind === 'aborted' ? base.owed : undefined;
      unlisted = owed ? undefined : base.listed;
      return {
        ...base,
        messages,
        round: outcome.round,
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
    else if (outcome.kind === 'max_rounds')
      sendFailure(sse, 'max_rounds', `the model used all ${maxRounds} rounds without a final answer; send a new message to go on`);
    else if (outcome.kind === 'error') reportFailure(sse, outcome.error, onError);
    else sse.end(); // aborted: the client left, nothing is listening
  }

  /** Busy is the other runner's (said in fixed words); anything else (the store down) is reported as what it is. */
  function refuse(sse: SseSink, err: unknown): void {
    if (err instanceof SessionBusyError) sendFailure(sse, 'session_busy', err.message);
    else reportFailure(sse, err, onError);
  }

  /** An answer always reaches the model: a question asked in the last round still gets one round after it. */
  const afterAnswer = (state: RunState): RunState => ({ ...state, round: Math.min(state.round, maxRounds - 1) });

  const persistentHost: RunHost = {
    async isResumable(record) {
      // What this process saw last is enough: a stale "paused here" only makes the claim or the run's
      // next write fail, and both then read the store.
      const state = (await states.entry(record.sessionId))?.value;
      return state?.status === 'paused' && state.paused?.requestId === record.requestId && state.paused.toolCallId === record.toolCallId;
    },
    async resume({ record, answer, toolResultContent, sse }) {
      const hold = leases.mint(record.sessionId);
      try {
        // The answer and, when the session is free, the lease go in one write.
        const out = await writeToolResult(states, record, toolResultContent, answer.cancelled ? undefined : hold);
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
        // Listed until the model has gone on: a crash before that leaves a stalled run a sweep continues.
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
      const out = await writeToolResult(states, record, toolResultContent);
      await store.markToolResultWritten(record.requestId);
      await unlist(record.sessionId, out.unlisted);
    },
  };

  async function rollForward(sessionId: string): Promise<RollForwardResult> {
    const result = await rollForwardRun({ store, states, index }, sessionId);
    // We wrote the ToolResult of a claimed resolution its claimer did not write: it may have died before
    // its audit line, so this one is written (at least once, never none; see AuditEntry.recovered).
    if (result.kind === 'rolled_forward' && result.wrote && result.record?.resolution) coordinator.auditRecovered(result.record);
    if (result.kind !== 'needs_expiry') return result;
    // Overdue and never collected (its timer died with a process): the coordinator claims and audits it.
    const closed = await coordinator.expireDue(sessionId);
    const after = await rollForwardRun({ store, states, index }, sessionId);
    return closed && after.kind === 'nothing' ? { kind: 'expired', record: closed } : after;
  }

  /** The user's message starts a turn: running from round 0 with the message at the end of history. */
  const userTurn = (sessionId: string, current: RunState | undefined, message: string): RunState => {
    const base = current ?? emptyRun(sessionId, system);
    const messages = [...base.messages, { role: 'user' as const, content: message }];
    return { ...base, status: 'running', paused: undefined, owed: undefined, listed: undefined, round: 0, messages };
  };

  async function chat({ sessionId, message, sse }: ChatInput): Promise<void> {
    const hold = leases.mint(sessionId);
    try {
      // A run at rest (new, or idle) takes the lease and the message in one write; its stale marker goes.
      let before: RunState | undefined;
      const taken = await acquire(hold, 0, (cur) => {
        before = cur;
        return !cur || cur.status === 'idle' ? userTurn(sessionId, cur, message) : undefined;
      });
      let start: RunState | undefined = taken.state;
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

  /**
   * A run paused on a card (or left running by a runner that died): close the open card first
   * (docs/protocol.md §6; its cancel+reason ToolResult goes in), roll forward a half-resolved one, then
   * start the turn. Undefined when the refusal is already on `sse`.
   */
  async function closeBefore(hold: Hold, sse: SseSink, message: string): Promise<RunState | undefined> {
    const { sessionId } = hold;
    const closed = await coordinator.supersede(sessionId);
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
    const closedContent = closed && written?.messages.find((m) => m.role === 'tool' && m.tool_call_id === closed.toolCallId)?.content;
    if (closed && typeof closedContent === 'string') {
      sse.send('tool_result', { toolCallId: closed.toolCallId, name: ASK_USER_TOOL_NAME, content: closedContent, isError: false });
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

  /** Nobody listens to a run a sweep continues: its output goes only to the run's history. */
  const detachedSink = (): SseSink => ({
    send() {},
    comment() {},
    end() {},
    signal: closing.signal,
    get closed() {
      return closing.signal.aborted;
    },
  });

  /** Continue a run stalled on an accepted answer, under the session lease; false when not ours to do. */
  async function resumeStalled(sessionId: string, seen: RunState | undefined): Promise<boolean> {
    if (!stalledOnAnswer(seen) || Date.now() - seen!.owed!.since < resumeStalledAfterMs) return false;
    const hold = leases.mint(sessionId);
    try {
      let state: RunState;
      try {
        state = (await acquire(hold, 0)).state;
      } catch (err) {
        if (err instanceof SessionBusyError) return false; // someone runs the session right now: it is not stalled
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

  /** A runner holds the session now (it may be about to pause and list it). */
  const isRunning = async (run: RunState | undefined) => run?.status === 'running' && (await leases.holds(run.lease));

  /** One sweep at a time per loop: a timer firing while a slow sweep still runs joins it. */
  let sweeping: Promise<SweepReport> | undefined;
  const sweep = (): Promise<SweepReport> => {
    sweeping ??= sweepMarkers({
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
    ...persistentHost,
    chat,
    rollForward: (sessionId) => rollForward(sessionId),
    sweep,
    getRun: (sessionId) => states.get(sessionId),
    async close() {
      // A sweep's detached runs are stopped: nobody waits for them, and what they owe stays owed for the
      // next start. A run still streaming to a client ends with its stream.
      closing.abort();
      await sweeping?.catch(() => undefined);
      leases.close();
    },
  };
}
