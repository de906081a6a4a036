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
import type { RunHost, SseSink } from '../core/host.js';
import type { RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';
import { PausedIndex } from './paused-index.js';
import { emptyRun, RunStates, type RunState } from './run-state.js';
import { runRounds, type LoopCoordinator, type RoundsOutcome } from './run-rounds.js';
import { LeaseLostError, SessionBusyError, SessionFence, type Lease, type TakeOver } from './session-fence.js';
import { ToolRegistry, type LoopTool } from './tool-registry.js';
import {
  awaitsModelAfter,
  rollForwardRun,
  stalledOnAnswer,
  unlist,
  writeToolResult,
  type RollForwardResult,
} from './tool-result-writer.js';
import { redactSecrets, reportFailure, sendFailure } from './failures.js';

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
  /** Session lease lifetime (renewed while running). @default 15000 */
  leaseTtlMs?: number;
  /** How long a continue waits for the session lease before `session_busy`. @default 3000 */
  resumeWaitMs?: number;
  /**
   * A sweep continues a run stalled on an accepted answer (its process died between the claim and the
   * model call) once the run state is this old; younger ones may belong to a continue still in flight
   * on another instance. @default 10000
   */
  resumeStalledAfterMs?: number;
  /** Extra Chat Completions request fields (temperature, …). */
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

export interface SweepReport {
  checked: number;
  rolledForward: number;
  expired: number;
  /** Runs stalled on an accepted answer that this sweep continued (their output goes to history). */
  resumed: number;
}

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
  const fence = new SessionFence(stateStore, { ttlMs: leaseTtlMs });
  const index = new PausedIndex(stateStore);
  const deps = { client, model, registry, coordinator, maxRounds, request, modelIdleTimeoutMs };

  const toolsFor = (sessionId: string): ChatCompletionTool[] => {
    const allowed = typeof allowedTools === 'function' ? allowedTools(sessionId) : allowedTools;
    const ok = (name: string) => !allowed || allowed.includes(name);
    return [
      ...(ok(ASK_USER_TOOL_NAME) ? [askUserChatTool(locale)] : []),
      ...registry
        .list()
        .filter((t) => ok(t.name))
        .map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })),
    ];
  };

  /** Run rounds under `lease`, then persist and announce the outcome. Always ends the stream with `done`. */
  async function drive(lease: Lease, sessionId: string, sse: SseSink, start: RunState): Promise<void> {
    const messages = [...start.messages];
    const outcome: RoundsOutcome = await runRounds(deps, {
      sessionId,
      sse,
      messages,
      roundsUsed: start.round,
      tools: toolsFor(sessionId),
      onRound: async (msgs, round) => {
        if (lease.lost) throw new LeaseLostError(sessionId);
        await states.update(sessionId, (cur) => ({ ...(cur ?? start), messages: [...msgs], round, status: 'running', owed: undefined }));
      },
    });
    // Another runner took the session over (this one's lease lapsed): its state is theirs now.
    if (lease.lost) return sendFailure(sse, 'session_busy', new LeaseLostError(sessionId).message);
    if (outcome.kind === 'paused') {
      const { record, event, round } = outcome;
      // Parked before the pause is saved: if this process dies before it releases, the answer's continue
      // takes the lease over at once instead of failing as session_busy until the lease lapses.
      await lease.park(record.requestId).catch(onError);
      // Listed before the pause is saved, so a holder killed right after the save is still found by a
      // sweep (a listed run that never paused is dropped by the sweep's own check). The index only guides
      // sweeps: failing to list must not turn a saved pause into an error shown instead of the card.
      await index.add(sessionId).catch(onError);
      // Durable first: only a run that is on disk may be announced as waiting for an answer.
      await states.update(sessionId, (cur) => ({
        ...(cur ?? start),
        messages,
        round,
        status: 'paused',
        paused: { requestId: record.requestId, toolCallId: record.toolCallId, round },
        owed: undefined,
      }));
      // Again, now that the pause is saved: a removal racing the first add may have landed in between.
      await index.add(sessionId).catch(onError);
      // The pause is saved and a parked lease is taken over at once: a failed delete costs nothing.
      await lease.release().catch(onError);
      sse.send('user_input_required', event);
      sse.send('done', { reason: 'paused' });
      return;
    }
    // An outcome settles what was owed (an error is reported once, not retried by every sweep), except an
    // abort before the first round came back: the model never answered, so a sweep may still continue it.
    await states.update(sessionId, (cur) => {
      const base = cur ?? start;
      return {
        ...base,
        messages,
        round: outcome.round,
        status: 'idle',
        paused: undefined,
        owed: outcome.kind === 'aborted' ? base.owed : undefined,
      };
    });
    await lease.release().catch(onError); // the run is saved; an unreleased lease lapses after its TTL
    if (outcome.kind === 'completed') sse.send('done', { reason: 'completed' });
    else if (outcome.kind === 'max_rounds')
      sendFailure(sse, 'max_rounds', `the model used all ${maxRounds} rounds without a final answer; send a new message to go on`);
    else if (outcome.kind === 'error') reportFailure(sse, outcome.error, onError);
    else sse.end(); // aborted: the client left, nothing is listening
  }

  /** The session lease, or undefined once the refusal is on `sse`: busy is the other runner's; anything else (the store down) is reported as what it is. */
  async function leaseOrReport(sessionId: string, waitMs: number, sse: SseSink, takeOver: TakeOver): Promise<Lease | undefined> {
    try {
      return await fence.acquire(sessionId, waitMs, takeOver);
    } catch (err) {
      if (err instanceof SessionBusyError) sendFailure(sse, 'session_busy', err.message);
      else reportFailure(sse, err, onError);
      return undefined;
    }
  }

  /** An answer always reaches the model: a question asked in the last round still gets one round after it. */
  const afterAnswer = (state: RunState): RunState => ({ ...state, round: Math.min(state.round, maxRounds - 1) });

  /** After the ToolResult is in history: take the lease and let the model continue, once. */
  async function continueAfter(record: InteractionRecord, sse: SseSink): Promise<void> {
    const lease = await leaseOrReport(record.sessionId, resumeWaitMs, sse, (held) => held.parkedOn === record.requestId);
    if (!lease) return;
    try {
      const state = await states.get(record.sessionId);
      if (!awaitsModelAfter(state, record.toolCallId)) {
        sendFailure(
          sse,
          'session_busy',
          'the session moved on (a newer message already ran after this answer); its answer is in the history',
        );
        return;
      }
      await drive(lease, record.sessionId, sse, afterAnswer(state!));
    } finally {
      await lease.release().catch(onError);
    }
  }

  const persistentHost: RunHost = {
    async isResumable(record) {
      const state = await states.get(record.sessionId);
      return state?.status === 'paused' && state.paused?.requestId === record.requestId && state.paused.toolCallId === record.toolCallId;
    },
    async resume({ record, answer, toolResultContent, sse }) {
      try {
        const out = await writeToolResult(states, record, toolResultContent);
        if (!out.known) {
          sendFailure(sse, 'not_resumable', 'this server has no run paused on that question; start the task again');
          return;
        }
        await store.markToolResultWritten(record.requestId);
        sse.send('tool_result', { toolCallId: record.toolCallId, name: ASK_USER_TOOL_NAME, content: toolResultContent, isError: false });
        if (answer.cancelled) {
          await unlist(states, index, record.sessionId).catch(onError);
          sse.send('done', { reason: 'cancelled' });
          return;
        }
        // Listed until the model has gone on: a crash before that leaves a stalled run a sweep continues.
        await continueAfter(record, sse);
        await unlist(states, index, record.sessionId).catch(onError);
      } catch (err) {
        reportFailure(sse, err, onError);
      }
    },
    async closed({ record, toolResultContent }) {
      await writeToolResult(states, record, toolResultContent);
      await store.markToolResultWritten(record.requestId);
      await unlist(states, index, record.sessionId);
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

  async function chat({ sessionId, message, sse }: ChatInput): Promise<void> {
    // A holder parked on the question the run is still paused on writes nothing more: it may be dead.
    const lease = await leaseOrReport(
      sessionId,
      0,
      sse,
      async (held) => (await states.get(sessionId))?.paused?.requestId === held.parkedOn,
    );
    if (!lease) return;
    try {
      // A new message closes the open card first (docs/protocol.md §6): its cancel+reason ToolResult goes in.
      const closed = await coordinator.supersede(sessionId);
      if (closed?.resolution) {
        const { status, at } = closed.resolution;
        sse.send('interaction_resolved', {
          requestId: closed.requestId,
          toolCallId: closed.toolCallId,
          status,
          at: new Date(at).toISOString(),
          selections: [],
          customInputLength: 0,
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
        return;
      }
      const start = await states.update(sessionId, (cur) => {
        const base = cur ?? emptyRun(sessionId, system);
        return {
          ...base,
          status: 'running',
          paused: undefined,
          owed: undefined,
          round: 0,
          messages: [...base.messages, { role: 'user', content: message }],
        };
      });
      await drive(lease, sessionId, sse, start!);
    } catch (err) {
      reportFailure(sse, err, onError);
    } finally {
      await lease.release().catch(onError);
      sse.end();
    }
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
  async function resumeStalled(sessionId: string): Promise<boolean> {
    const seen = await states.get(sessionId);
    if (!stalledOnAnswer(seen) || Date.now() - seen!.owed!.since < resumeStalledAfterMs) return false;
    let lease: Lease;
    try {
      lease = await fence.acquire(sessionId, 0);
    } catch {
      return false; // someone runs the session right now: it is not stalled
    }
    try {
      const state = await states.get(sessionId);
      if (!stalledOnAnswer(state) || state!.rev !== seen!.rev) return false;
      await drive(lease, sessionId, detachedSink(), afterAnswer(state!));
      await unlist(states, index, sessionId);
      return true;
    } finally {
      await lease.release().catch(onError);
    }
  }

  async function sweepSession(sessionId: string, report: SweepReport): Promise<void> {
    const result = await rollForward(sessionId);
    if (result.kind === 'expired') report.expired++;
    else if (result.kind === 'rolled_forward') {
      // A record gone past retention is closed as expired too.
      if (!result.record || result.record.resolution?.status === 'expired') report.expired++;
      else report.rolledForward++;
    }
    // Stalled before this sweep, or just rolled forward: a run that still owes the model its answer.
    if (await resumeStalled(sessionId)) report.resumed++;
  }

  async function sweepAll(): Promise<SweepReport> {
    const report: SweepReport = { checked: 0, rolledForward: 0, expired: 0, resumed: 0 };
    for (const sessionId of await index.list()) {
      if (closing.signal.aborted) break;
      report.checked++;
      // One session's failure is logged and the sweep goes on: the others must not starve behind it.
      await sweepSession(sessionId, report).catch(onError);
    }
    return report;
  }

  /** One sweep at a time per loop: a timer firing while a slow sweep still runs joins it. */
  let sweeping: Promise<SweepReport> | undefined;
  const sweep = (): Promise<SweepReport> => {
    sweeping ??= sweepAll().finally(() => (sweeping = undefined));
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
    },
  };
}
