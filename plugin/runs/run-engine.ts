/**
 * The resume engine: it runs a session's turn, pauses it on a question, and resumes it where it paused
 * when the question is answered, also in another process or after kill -9, whatever the runtime. A
 * runtime brings its run format and its turn runner (run-format.ts): the plugin loop (plugin/loop/) and the
 * AI SDK runtime (plugin/ai-sdk/) build one engine each. The engine is the kit's RunHost for them.
 *
 * Every run's events leave through the `SseSink` its turn is driven on (`#drive`): the seam where stopping
 * a run and following it from an event log will sit.
 */
import { randomBytes } from 'node:crypto';
import { interactionResolvedOf, type Coordinator } from '../core/coordinator.js';
import { AskUserError } from '../core/errors.js';
import type { ClosedContext, ResumeContext, RunHost, SseSink } from '../core/host.js';
import type { ChatInput } from '../core/runtime.js';
import { RUN_STOPPED, RunStream } from '../core/run-stream.js';
import { answerToolResultText } from '../contract/tool-result.js';
import { approvalSettlement, askSettlement, settlementOf, writeSettlement, type Settlement } from './tool-result-writer.js';
import { deniedResultText, INTERRUPTED_RESULT } from '../contract/approval.js';
import { errorText } from '../tools/loop-tool.js';
import type { EventLog, LogPosition } from '../store/event-log.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';
import { reportFailure, sendFailure } from './failures.js';
import type { PausedIndex } from './paused-index.js';
import type { ApprovalRunner, ApprovedCall, ApprovedRun, CallResult, ResumableRun, RunFormat, TurnRunner } from './run-format.js';
import { Hold, LeaseLostError, RunLeases, SessionBusyError, sessionLease } from './run-lease.js';
import type { StoredRuns } from './stored-runs.js';
import { sweepMarkers, type SweepReport } from './sweep.js';
import { rollForwardRun, type RollForwardResult, type WriteOutcome } from './tool-result-writer.js';

export interface RunEngineOptions<M, S extends ResumableRun<M>> {
  /** The kit's coordinator: the chat's door, and the closing of open and overdue questions. */
  coordinator: Pick<Coordinator, 'admitChat' | 'closeOpen' | 'expireDue' | 'auditRecovered' | 'cancelOpen' | 'log'> &
    Partial<Pick<Coordinator, 'notifyDue'>>;
  /** Where the questions live (the kit's store). */
  store: PendingStore;
  /** Where this runtime's runs live. */
  states: StoredRuns<S>;
  leases: RunLeases;
  /** This runtime's paused-run markers, for sweeps. */
  index: PausedIndex;
  format: RunFormat<M, S>;
  runTurn: TurnRunner<M>;
  /** How the runtime runs the calls a user approved on a card (§12); without it they fail with an error result. */
  approvals?: ApprovalRunner<M>;
  /** Model calls per user message, and how the limit reads in the `max_rounds` failure (`rounds`, `steps`). */
  limit: { calls: number; words: string };
  /** How long a continue waits for the session lease before `session_busy`. */
  resumeWaitMs: number;
  /** A sweep continues a run stalled on an accepted answer once the answer is this old. */
  resumeStalledAfterMs: number;
  /** Failures nobody awaits, and the full error behind a stream's fixed-word failure. */
  onError(err: unknown): void;
  /** Clock in epoch ms. @default Date.now */
  now?: () => number;
}

/** What a runtime on the engine offers of contract §11: the stop button, numbered continues, liveness for followers. */
export interface RunStreamControls {
  /** The stop button: stop the session's run in flight (on any instance) or close its open card as cancelled. */
  stop(sessionId: string): Promise<{ stopped: boolean }>;
  /** Where the continue of `record`'s answer numbers on in the session's event log. */
  streamOf(record: InteractionRecord): Promise<LogPosition>;
  /** A runner holds the session, or a sweep owes its run a model call: a follower waits for frames. */
  inFlight(sessionId: string): Promise<boolean>;
}

/** A runtime as hosts use it: the kit's RunHost, its chat, and what a host calls at startup and shutdown. */
export interface EngineRuntime<S> extends Omit<RunHost, keyof RunStreamControls>, RunStreamControls {
  chat(input: ChatInput): Promise<void>;
  rollForward(sessionId: string): Promise<RollForwardResult>;
  sweep(): Promise<SweepReport>;
  getRun(sessionId: string): Promise<S | undefined>;
  close(): Promise<void>;
}

export class RunEngine<M, S extends ResumableRun<M>> implements RunHost {
  readonly #coordinator: RunEngineOptions<M, S>['coordinator'];
  readonly #store: PendingStore;
  readonly #log: EventLog;
  readonly #states: StoredRuns<S>;
  readonly #leases: RunLeases;
  readonly #index: PausedIndex;
  readonly #format: RunFormat<M, S>;
  readonly #runTurn: TurnRunner<M>;
  readonly #approvals: ApprovalRunner<M> | undefined;
  readonly #limit: { calls: number; words: string };
  readonly #resumeWaitMs: number;
  readonly #resumeStalledAfterMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #now: () => number;
  readonly #lease: ReturnType<typeof sessionLease<S>>;
  /** Aborted by close(): stops a sweep and the runs it continues. */
  readonly #closing = new AbortController();
  /** One sweep at a time: a timer firing while a slow sweep still runs joins it. */
  #sweeping: Promise<SweepReport> | undefined;
  /** The runs this process runs now, by session, and the promise each settles with: what stop reaches. */
  readonly #live = new Map<string, { stream: RunStream; done: Promise<void> }>();

  constructor(options: RunEngineOptions<M, S>) {
    const { resumeWaitMs, resumeStalledAfterMs, now = Date.now } = options;
    if (!(resumeStalledAfterMs > resumeWaitMs)) {
      // Younger than a continue's wait for the lease, a stall may be a live continue about to take it.
      throw new TypeError(`resumeStalledAfterMs (${resumeStalledAfterMs}) must be longer than resumeWaitMs (${resumeWaitMs})`);
    }
    this.#coordinator = options.coordinator;
    this.#store = options.store;
    this.#log = options.coordinator.log;
    this.#states = options.states;
    this.#leases = options.leases;
    this.#index = options.index;
    this.#format = options.format;
    this.#runTurn = options.runTurn;
    this.#approvals = options.approvals;
    this.#limit = options.limit;
    this.#resumeWaitMs = resumeWaitMs;
    this.#resumeStalledAfterMs = resumeStalledAfterMs;
    this.#onError = options.onError;
    this.#now = now;
    this.#lease = sessionLease(this.#states, this.#leases, (sessionId) => this.#format.newRun(sessionId), this.#onError, now);
  }

  /** The engine as a plain object of its members, so a host may spread it (MCP's `around`) or pass a method on. */
  asRuntime(): EngineRuntime<S> {
    return {
      isResumable: (record) => this.isResumable(record),
      resume: (ctx) => this.resume(ctx),
      closed: (ctx) => this.closed(ctx),
      chat: (input) => this.chat(input),
      stop: (sessionId) => this.stop(sessionId),
      streamOf: (record) => this.streamOf(record),
      inFlight: (sessionId) => this.inFlight(sessionId),
      rollForward: (sessionId) => this.rollForward(sessionId),
      sweep: () => this.sweep(),
      getRun: (sessionId) => this.getRun(sessionId),
      close: () => this.close(),
    };
  }

  /** True when this run is paused on `record`'s question. */
  async isResumable(record: InteractionRecord): Promise<boolean> {
    // What this process saw last is enough: a stale "paused here" only makes the claim or the run's
    // next write fail, and both then read the store.
    const state = (await this.#states.entry(record.sessionId))?.value;
    return state?.status === 'paused' && state.paused?.requestId === record.requestId && state.paused.toolCallId === record.toolCallId;
  }

  /**
   * A claimed answer: write its ToolResult, then (unless cancelled) run the model on, on the continue's
   * stream. Given a RunStream (the routes give one, numbered on from `streamOf`), the run is stoppable
   * and outlives its client.
   */
  resume(ctx: ResumeContext): Promise<void> {
    return ctx.sse instanceof RunStream ? this.#tracked(ctx.sse, () => this.#resume(ctx)) : this.#resume(ctx);
  }

  async #resume({ record, answer, toolResultContent, sse }: ResumeContext): Promise<void> {
    const hold = this.#leases.mint(record.sessionId);
    try {
      // The answer and, when the session is free, the lease go in one write.
      const settlement = record.form.approvals
        ? approvalSettlement(record.form.approvals, answer.cancelled ? 'cancelled' : (answer.decisions ?? []))
        : askSettlement(record.toolCallId, toolResultContent);
      const out = await this.#write(record, settlement, answer.cancelled ? undefined : hold);
      if (!out.known) {
        sendFailure(sse, 'not_resumable', 'this server has no run paused on that question; start the task again');
        return;
      }
      await this.#store.markToolResultWritten(record.requestId);
      sendResults(sse, settlement.results);
      await this.#unlist(record.sessionId, out.unlisted);
      if (answer.cancelled) {
        sse.send('done', { reason: 'cancelled' });
        return;
      }
      // Listed until the model has gone on: a crash before that leaves a stalled run a sweep continues.
      let state = out.took ? out.state : undefined;
      if (!state) {
        try {
          state = (await this.#lease.acquire(hold, this.#resumeWaitMs)).state;
        } catch (err) {
          return this.#refuse(sse, err);
        }
      }
      if (!this.#awaitsModel(state, record.toolCallId)) {
        sendFailure(
          sse,
          'session_busy',
          'the session moved on (a newer message already ran after this answer); its answer is in the history',
        );
        return;
      }
      // The answer's frames are out (logged and sent) before the model is asked: what a crash during the
      // model call leaves behind never includes an answer the page was not told of.
      if (sse instanceof RunStream) await sse.settled();
      await this.#drive(hold, sse, this.#afterAnswer(state));
    } catch (err) {
      reportFailure(sse, err, this.#onError);
    } finally {
      // The log has this run's last frames before the session is free for the next run's first.
      if (sse instanceof RunStream) await sse.settled();
      await this.#lease.letGo(hold);
    }
  }

  /** A question closed without an answer (expired, superseded): its ToolResult goes into the run, which stays at rest. */
  async closed(ctx: ClosedContext): Promise<void> {
    await this.#closedNow(ctx);
  }

  /** `closed`, saying whether this run knew the question (its results are in the history now), and what it wrote. */
  async #closedNow({ record, toolResultContent }: ClosedContext): Promise<WriteOutcome<S> & { settlement: Settlement }> {
    const settlement =
      record.form.approvals && record.resolution
        ? settlementOf(record, record.resolution)
        : askSettlement(record.toolCallId, toolResultContent);
    const out = await this.#write(record, settlement);
    await this.#store.markToolResultWritten(record.requestId);
    await this.#unlist(record.sessionId, out.unlisted);
    return { ...out, settlement };
  }

  /**
   * POST /api/chat: the door first (caller, session, message), before anything is stored, superseded or
   * streamed; then an open card is closed, a half-resolved one rolled forward, and the message runs.
   */
  async chat(input: ChatInput): Promise<void> {
    const entered = await enterChat(this.#coordinator, input);
    if (!entered) return;
    const { sessionId, message, sse } = entered;
    const stream = new RunStream({ log: this.#log, sessionId, runId: newRunId(), seq: 0, client: sse, onError: this.#onError });
    await this.#tracked(stream, () => this.#run(sessionId, message, stream));
  }

  /**
   * The stop button (contract §11): the run in flight stops on whichever instance runs it and ends as
   * cancelled; an open card is closed as cancelled; `stopped: false` when there was neither. Resolves once
   * the session is at rest, so its next message is taken at once.
   */
  async stop(sessionId: string): Promise<{ stopped: boolean }> {
    const live = this.#live.get(sessionId);
    if (live) {
      live.stream.stop();
      await live.done;
      return { stopped: true };
    }
    const state = await this.#states.get(sessionId);
    if (state?.status === 'running' && (await this.#leases.holds(state.lease))) {
      await this.#log.signal(sessionId, STOP_SIGNAL);
      await this.#atRest(sessionId);
      return { stopped: true };
    }
    const open = await this.#coordinator.cancelOpen(sessionId);
    if (!open) return { stopped: false };
    const { record, answer } = open;
    const stream = new RunStream({ log: this.#log, sessionId, ...(await this.streamOf(record)), onError: this.#onError });
    stream.send('interaction_resolved', interactionResolvedOf(record, record.resolution!, answer));
    await this.resume({ record, answer, toolResultContent: answerToolResultText(answer), sse: stream });
    stream.end();
    await stream.settled();
    return { stopped: true };
  }

  /** Where the continue of `record`'s answer numbers on: the run that asked, after its last frame. */
  async streamOf(record: InteractionRecord): Promise<LogPosition> {
    const state = (await this.#states.entry(record.sessionId))?.value;
    const asked = state?.paused?.requestId === record.requestId ? state.stream : undefined;
    // A run paused before it had a stream (an older version) goes on as a new one.
    return asked ?? { runId: newRunId(), seq: 0 };
  }

  /**
   * A runner holds the session now, or an answer waits for a sweep to continue its run (its runner died):
   * a follower waits for its frames (`GET /api/chat/stream`).
   */
  async inFlight(sessionId: string): Promise<boolean> {
    const state = await this.#states.get(sessionId);
    return this.#stalledOnAnswer(state) || (await this.#isRunning(state));
  }

  /** Finish a crash-interrupted answer of one session (idempotent). */
  async rollForward(sessionId: string): Promise<RollForwardResult> {
    const result = await this.#rollForwardRun(sessionId);
    // We wrote the ToolResult of a claimed resolution its claimer did not write: it may have died before
    // its audit line, so this one is written (at least once, never none; see AuditEntry.recovered).
    if (result.kind === 'rolled_forward' && result.wrote && result.record?.resolution) this.#coordinator.auditRecovered(result.record);
    if (result.kind !== 'needs_expiry') return result;
    // Overdue and never collected (its timer died with a process): the coordinator claims and audits it.
    const closed = await this.#coordinator.expireDue(sessionId);
    const after = await this.#rollForwardRun(sessionId);
    return closed && after.kind === 'nothing' ? { kind: 'expired', record: closed } : after;
  }

  /** Every listed session: roll forward, close overdue questions, continue what is owed. Call at startup. */
  sweep(): Promise<SweepReport> {
    this.#sweeping ??= sweepMarkers<S>({
      index: this.#index,
      states: this.#states,
      getMany: (ids) => this.#store.getMany(ids),
      rollForward: (sessionId) => this.rollForward(sessionId),
      resumeStalled: (sessionId, seen) => this.#resumeStalled(sessionId, seen),
      isRunning: (run) => this.#isRunning(run),
      needsSweep: (run) => run?.status === 'paused' || this.#stalledOnAnswer(run),
      notifyDue: (record) => this.#coordinator.notifyDue?.(record),
      signal: this.#closing.signal,
      onError: this.#onError,
      now: this.#now,
    }).finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  getRun(sessionId: string): Promise<S | undefined> {
    return this.#states.get(sessionId);
  }

  /** A sweep's detached runs stop: nobody waits for them, and what they owe stays owed for the next start. */
  async close(): Promise<void> {
    // Runs in flight stop without an outcome: their lease lapses and a sweep or the next message goes on.
    for (const { stream } of this.#live.values()) stream.stop(ENGINE_CLOSING);
    this.#closing.abort();
    await this.#sweeping?.catch(() => undefined);
    this.#leases.close();
  }

  /** Run a turn under `hold`, then persist and announce the outcome. Always ends the stream with `done`. */
  async #drive(hold: Hold, sse: SseSink, begin: S): Promise<void> {
    const { sessionId } = hold;
    const format = this.#format;
    const start = await this.#runApproved(hold, sse, begin);
    const messages = [...start.messages];
    const outcome = await this.#runTurn({
      sessionId,
      sse,
      messages,
      used: format.callsOf(start),
      alwaysAllowed: start.alwaysAllowed ?? [],
      save: async (msgs, calls) => {
        await this.#states.update(sessionId, (cur) =>
          format.withCalls({ ...hold.check(cur), messages: [...msgs], status: 'running', owed: undefined, stream: positionOf(sse) }, calls),
        );
      },
    });
    // Another runner took the session over (this one's lease lapsed): its state is theirs now.
    if (hold.lost) return sendFailure(sse, 'session_busy', new LeaseLostError(sessionId).message);
    if (outcome.kind === 'paused') {
      const { record, event, count } = outcome;
      // Listed before the pause is saved, so a holder killed right after the save is still found by a
      // sweep (a listed run that never paused is dropped by the sweep's own check). The marker only guides
      // sweeps: failing to list must not turn a saved pause into an error shown instead of the card.
      const listed = (await this.#index.add(sessionId, { requestId: record.requestId }).catch(this.#onError)) ?? undefined;
      // Durable first, the lease let go in the same write: only a run that is on disk may be announced.
      await this.#states.update(sessionId, (cur) =>
        format.withCalls(
          {
            ...hold.check(cur),
            messages,
            status: 'paused',
            paused: { requestId: record.requestId, toolCallId: record.toolCallId },
            owed: undefined,
            lease: undefined,
            listed,
            // The card and `done` follow as the run's next two frames; its continue numbers on after them.
            stream: positionOf(sse, 2),
          },
          count,
        ),
      );
      hold.settled = true;
      sse.send('user_input_required', event);
      sse.send('done', { reason: 'paused' });
      return;
    }
    // An outcome settles what was owed (an error is reported once, not retried by every sweep), except an
    // abort before the first call came back: the model never answered, so a sweep may still continue it.
    let unlisted: string | undefined;
    const stopped = outcome.kind === 'aborted' && sse.signal.reason === RUN_STOPPED;
    await this.#states.update(sessionId, (cur) => {
      const base = hold.check(cur);
      // Stopped by the user, it owes nothing: nobody continues a run its user stopped.
      const owed = outcome.kind === 'aborted' && !stopped ? base.owed : undefined;
      unlisted = owed ? undefined : base.listed;
      return format.withCalls(
        { ...base, messages, status: 'idle', paused: undefined, owed, lease: undefined, listed: owed ? base.listed : undefined },
        outcome.count,
      );
    });
    hold.settled = true;
    await this.#unlist(sessionId, unlisted);
    if (outcome.kind === 'completed') sse.send('done', { reason: 'completed' });
    else if (outcome.kind === 'limit')
      sendFailure(
        sse,
        'max_rounds',
        `the model used all ${this.#limit.calls} ${this.#limit.words} without a final answer; send a new message to go on`,
      );
    else if (outcome.kind === 'error') reportFailure(sse, outcome.error, this.#onError);
    else if (stopped) sse.send('done', { reason: 'cancelled' });
    else sse.end(); // aborted by a closing engine: the run is left for the next start
  }

  /**
   * The calls the user approved, each at most once (§12): "about to run" is saved before a call runs and
   * its result in the next write (with the next call's "about to run"), its `tool_result` sent once that
   * write is saved. A call found marked after a crash gets `{"interrupted":true}` unless its tool is
   * idempotent. A user's stop denies the calls not started yet; a closing engine leaves them queued.
   */
  async #runApproved(hold: Hold, sse: SseSink, start: S): Promise<S> {
    const queue = start.approved ?? [];
    if (queue.length === 0) return start;
    const { sessionId } = hold;
    let state = start;
    let messages = start.messages;
    const unsent: CallResult[] = [];
    const save = async (left: ApprovedCall[]) => {
      const saved = await this.#states.update(sessionId, (cur) => ({
        ...hold.check(cur),
        messages,
        approved: left.length > 0 ? left : undefined,
      }));
      state = saved ?? state;
      sendResults(sse, unsent.splice(0));
    };
    for (const [i, call] of queue.entries()) {
      const rest = queue.slice(i + 1);
      let result: ApprovedRun<M>;
      if (call.running && !this.#approvals?.idempotent(call.tool, { sessionId, sse })) {
        result = this.#textResult(call, INTERRUPTED_RESULT, true);
      } else if (sse.signal.aborted) {
        if (sse.signal.reason !== RUN_STOPPED) {
          await save(queue.slice(i));
          return state;
        }
        result = this.#textResult(call, deniedResultText('cancelled'), false);
      } else {
        await save([{ ...call, running: true }, ...rest]);
        result = await this.#runOne(sessionId, call, sse, messages);
      }
      messages = result.into(messages);
      unsent.push({ toolCallId: call.toolCallId, name: call.tool, content: result.content, isError: result.isError });
    }
    await save([]);
    return state;
  }

  async #runOne(sessionId: string, call: ApprovedCall, sse: SseSink, messages: readonly M[]): Promise<ApprovedRun<M>> {
    if (!this.#approvals) return this.#textResult(call, errorText(`${call.tool} cannot run: this runtime runs no approved calls`), true);
    try {
      return await this.#approvals.run(call, { sessionId, sse, messages });
    } catch (err) {
      return this.#textResult(call, errorText(`${call.tool} failed: ${(err as Error)?.message ?? String(err)}`), true);
    }
  }

  #textResult(call: ApprovedCall, content: string, isError: boolean): ApprovedRun<M> {
    return {
      content,
      isError,
      into: (messages) => this.#format.withToolResult(messages, call.toolCallId, content, { name: call.tool, isError }),
    };
  }

  /** Busy is the other runner's (said in fixed words); anything else (the store down) is reported as what it is. */
  #refuse(sse: SseSink, err: unknown): void {
    if (err instanceof SessionBusyError) sendFailure(sse, 'session_busy', err.message);
    else reportFailure(sse, err, this.#onError);
  }

  async #run(sessionId: string, message: string, sse: RunStream): Promise<void> {
    const hold = this.#leases.mint(sessionId);
    try {
      // A run at rest (new, or idle) takes the lease and the message in one write; its stale marker goes.
      let before: S | undefined;
      const taken = await this.#lease.acquire(hold, 0, (cur) => {
        before = cur;
        return !cur || cur.status === 'idle' ? this.#userTurn(sessionId, cur, message) : undefined;
      });
      let start: S | undefined = taken.state;
      if (taken.prepared) await this.#unlist(sessionId, before?.listed);
      else start = await this.#closeBefore(hold, sse, message);
      if (start) await this.#drive(hold, sse, start);
    } catch (err) {
      this.#refuse(sse, err);
    } finally {
      // The log has this run's last frames before the session is free for the next run's first.
      sse.end();
      await sse.settled();
      await this.#lease.letGo(hold);
    }
  }

  /**
   * A run paused on a card (or left running by a runner that died): close the open card first
   * (docs/protocol.md §6; its cancel+reason ToolResult goes in), roll forward a half-resolved one, then
   * start the turn. Undefined when the refusal is already on `sse`.
   */
  async #closeBefore(hold: Hold, sse: SseSink, message: string): Promise<S | undefined> {
    const { sessionId } = hold;
    // The coordinator claims and audits the closing; its ToolResult is written here, as an answer's is.
    const closing = await this.#coordinator.closeOpen(sessionId);
    const closed = closing?.record;
    if (closed?.resolution) sse.send('interaction_resolved', interactionResolvedOf(closed, closed.resolution));
    const wrote = closing ? await this.#closedNow(closing) : undefined;
    const rolled = await this.rollForward(sessionId);
    if (wrote?.known) sendResults(sse, wrote.settlement.results);
    else if (rolled.kind === 'rolled_forward' && rolled.wrote) sendResults(sse, rolled.results);
    if (rolled.kind === 'pending') {
      sendFailure(sse, 'session_busy', 'a question of this session is still being answered; wait for its stream to end');
      return undefined;
    }
    let unlisted: string | undefined;
    const start = await this.#states.update(sessionId, (cur) => {
      unlisted = hold.check(cur).listed;
      return this.#userTurn(sessionId, cur, message);
    });
    await this.#unlist(sessionId, unlisted);
    return start;
  }

  /** The user's message starts a turn: running from its first call with the message at the end of history. */
  #userTurn(sessionId: string, current: S | undefined, message: string): S {
    const base = current ?? this.#format.newRun(sessionId);
    const messages = [...base.messages, this.#format.userMessage(message)];
    return this.#format.withCalls({ ...base, status: 'running', paused: undefined, owed: undefined, listed: undefined, messages }, 0);
  }

  /** An answer always reaches the model: a question asked in the last call still gets one after it. */
  #afterAnswer(state: S): S {
    return this.#format.withCalls(state, Math.min(this.#format.callsOf(state), this.#limit.calls - 1));
  }

  #write(record: InteractionRecord, settlement: Settlement, hold?: Hold): Promise<WriteOutcome<S>> {
    return writeSettlement(this.#format, this.#states, record, settlement, hold);
  }

  /**
   * The run's history ends with the answered turn of `toolCallId`, the model owed a call: approved calls
   * still to run count as answered, since they run before that call.
   */
  #awaitsModel(state: S | undefined, toolCallId: string): boolean {
    const queued = state?.approved ?? [];
    if (!state || queued.length === 0) return this.#format.awaitsModelAfter(state, toolCallId);
    let messages = state.messages;
    for (const call of queued) messages = this.#format.withToolResult(messages, call.toolCallId, '', { name: call.tool, isError: false });
    return this.#format.awaitsModelAfter({ ...state, messages }, toolCallId);
  }

  #rollForwardRun(sessionId: string): Promise<RollForwardResult> {
    return rollForwardRun({ store: this.#store, states: this.#states, index: this.#index, format: this.#format }, sessionId);
  }

  #unlist(sessionId: string, version: string | undefined): Promise<void> | undefined {
    return version ? this.#index.remove(sessionId, version).catch(this.#onError) : undefined;
  }

  /** True when the run is idle and owes the model a call for an answer nobody continued: a sweep does. */
  #stalledOnAnswer(state: S | undefined): boolean {
    return state?.status === 'idle' && state.owed !== undefined && this.#awaitsModel(state, state.owed.toolCallId);
  }

  /** Continue a run stalled on an accepted answer, under the session lease; false when not ours to do. */
  async #resumeStalled(sessionId: string, seen: S | undefined): Promise<boolean> {
    if (!this.#stalledOnAnswer(seen) || this.#now() - seen!.owed!.since < this.#resumeStalledAfterMs) return false;
    const hold = this.#leases.mint(sessionId);
    try {
      let state: S;
      try {
        state = (await this.#lease.acquire(hold, 0)).state;
      } catch (err) {
        if (err instanceof SessionBusyError) return false; // someone runs the session right now: it is not stalled
        throw err;
      }
      // Taking the lease is the only write since `seen`: anything else means someone else went on.
      if (!this.#stalledOnAnswer(state) || state.rev !== seen!.rev + 1) return false;
      // Nobody listens: the frames go to the log, numbered on from the last one a client may have seen.
      const stream = new RunStream({ log: this.#log, sessionId, ...(await this.#numberOn(state)), onError: this.#onError });
      const onClose = () => stream.stop(ENGINE_CLOSING);
      this.#closing.signal.addEventListener('abort', onClose, { once: true });
      try {
        await this.#tracked(stream, () => this.#drive(hold, stream, this.#afterAnswer(state)));
      } finally {
        this.#closing.signal.removeEventListener('abort', onClose);
        stream.end();
        await stream.settled();
      }
      return true;
    } finally {
      await this.#lease.letGo(hold);
    }
  }

  /**
   * Where a run continued after its runner died numbers on: past both what its state saved and what the
   * log holds of it (frames logged after the last save).
   */
  async #numberOn(state: S): Promise<LogPosition> {
    const saved = state.stream ?? { runId: newRunId(), seq: 0 };
    const last = await this.#log.last(state.sessionId).catch((err: unknown) => void this.#onError(err));
    return last?.runId === saved.runId && last.seq > saved.seq ? { runId: saved.runId, seq: last.seq } : saved;
  }

  /**
   * Run `work` as this process's run of the session: the stop button finds it here, or through the log's
   * signal when pressed on another instance.
   */
  async #tracked(stream: RunStream, work: () => Promise<void>): Promise<void> {
    const { sessionId } = stream;
    // Watched while the run goes; not awaited first, so the run does not wait for a subscription.
    const watching = this.#log
      .watch(sessionId, (signal) => {
        if (signal === STOP_SIGNAL) stream.stop();
      })
      .catch((err: unknown) => void this.#onError(err));
    const done = work();
    const entry = { stream, done: done.catch(() => undefined) };
    this.#live.set(sessionId, entry);
    try {
      await done;
    } finally {
      if (this.#live.get(sessionId) === entry) this.#live.delete(sessionId);
      (await watching)?.();
    }
  }

  /** After a stop signalled to another instance: until its run has let the session go (bounded). */
  async #atRest(sessionId: string): Promise<void> {
    const until = Date.now() + this.#resumeWaitMs;
    while (Date.now() < until) {
      if (!(await this.#isRunning(await this.#states.get(sessionId)))) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A runner holds the session now (it may be about to pause and list it). */
  async #isRunning(run: S | undefined): Promise<boolean> {
    return run?.status === 'running' && (await this.#leases.holds(run.lease));
  }
}

/**
 * A chat through the kit's door (plugin/core/chat-admission.ts), for the engine's `chat` and the MCP
 * bridge's before it: the admitted session and message, with the stream now open; or undefined when the refusal was written on the stream the chat was
 * given open. Given a function instead, the stream stays closed and the refusal rejects with its
 * `AskUserError`, which the host answers as JSON.
 */
export interface EnteredChat {
  sessionId: string;
  message: string;
  sse: SseSink;
}

export async function enterChat(coordinator: Pick<Coordinator, 'admitChat'>, input: ChatInput): Promise<EnteredChat | undefined> {
  let admitted: { sessionId: string; message: string };
  try {
    admitted = await coordinator.admitChat(input);
  } catch (err) {
    if (typeof input.sse === 'function' || !(err instanceof AskUserError)) throw err;
    sendFailure(input.sse, err.code, err.message);
    input.sse.end();
    return undefined;
  }
  return { ...admitted, sse: typeof input.sse === 'function' ? input.sse() : input.sse };
}

/** Each result written into the run, on the stream as `tool_result`. */
function sendResults(sse: SseSink, results: readonly CallResult[]): void {
  for (const r of results) sse.send('tool_result', { toolCallId: r.toolCallId, name: r.name, content: r.content, isError: r.isError });
}

/** What the stop button sends through the log to the instance running the session. */
const STOP_SIGNAL = 'stop';
/** Why the runs of a closing engine stop: not a user's stop, so what they owe stays owed. */
const ENGINE_CLOSING = new DOMException('the server is closing', 'AbortError');

/** A run's id (contract §11): 16 characters of `[A-Za-z0-9_-]`, new for every chat. */
const newRunId = (): string => randomBytes(12).toString('base64url');

/** The stream position a run's state keeps, `ahead` frames past the last one sent. */
function positionOf(sse: SseSink, ahead = 0): LogPosition | undefined {
  return sse instanceof RunStream ? { runId: sse.runId, seq: sse.position.seq + ahead } : undefined;
}
