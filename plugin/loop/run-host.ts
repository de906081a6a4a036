/**
 * What a runtime with exact resume does around its model calls, whatever its history format: the plugin's
 * agent loop (Chat Completions or Responses messages) and the AI SDK runtime (ModelMessage[]) both build
 * their RunHost, chat, roll-forward and sweep from this. A runtime brings how one turn calls the model
 * (`runTurn`) and how its history reads; the leases, pauses, answers, closings and sweeps are here once.
 */
import type { UserInputRequired } from '../contract/schema.js';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import { cancelAnswerFor } from '../contract/tool-result.js';
import { summarizeAnswer } from '../core/audit.js';
import type { RunHost, SseSink } from '../core/host.js';
import { AskUserError } from '../core/errors.js';
import type { ChatInput, RuntimeCore } from '../core/runtime.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';
import { reportFailure, sendFailure } from './failures.js';
import type { PausedIndex } from './paused-index.js';
import { Hold, LeaseLostError, RunLeases, SessionBusyError, sessionLease } from './run-lease.js';
import type { RunStates } from './run-state.js';
import { sweepMarkers, type SweepReport } from './sweep.js';
import { rollForwardRun, writeToolResult, type HistoryOps, type ResumableRun, type RollForwardResult } from './tool-result-writer.js';

/** How one turn of model calls ended; `count` is the calls used in the turn so far. */
export type TurnOutcome =
  | { kind: 'completed' | 'limit' | 'aborted'; count: number }
  | { kind: 'error'; count: number; error: Error }
  | { kind: 'paused'; count: number; record: InteractionRecord; event: UserInputRequired };

/** A history format as the skeleton reads it, beside what writing a ToolResult needs of it. */
export interface RunHistory<M, S> extends HistoryOps<M> {
  /** The user's message as a history entry. */
  userMessage(text: string): M;
  /** The ToolResult written for `toolCallId`, as a `tool_result` event says it. */
  resultOf(messages: readonly M[], toolCallId: string): { content: string; isError: boolean } | undefined;
  /** The run's history ends with the answered turn of `toolCallId`: the model is owed a call. */
  awaitsModelAfter(state: S | undefined, toolCallId: string): boolean;
}

/** The field counting a turn's model calls: `round` in the loop's runs, `step` in the AI SDK's. */
type Counted<K extends string> = { [key in K]: number } & { paused?: { requestId: string; toolCallId: string } & { [key in K]: number } };

export interface RunSkeletonParts<M, K extends string, S extends ResumableRun<M> & Counted<K>> {
  store: PendingStore;
  core: Pick<RuntimeCore, 'supersede' | 'expireDue' | 'auditRecovered' | 'admitChat'>;
  states: RunStates<S>;
  leases: RunLeases;
  index: PausedIndex;
  history: RunHistory<M, S>;
  /** `round` or `step`. */
  counter: K;
  /** A new session's run. */
  empty(sessionId: string): S;
  /** Model calls per user message, and how the limit reads in the `max_rounds` failure. */
  limit: { calls: number; words: string };
  /** One turn: call the model from `messages` (changed in place) with `used` calls spent; `save` records each call's progress. */
  runTurn(input: {
    sessionId: string;
    sse: SseSink;
    messages: M[];
    used: number;
    save(messages: M[], count: number): Promise<void>;
  }): Promise<TurnOutcome>;
  resumeWaitMs: number;
  resumeStalledAfterMs: number;
  onError(err: unknown): void;
}

/** A runtime's surface: the kit's RunHost, its chat, and what a host calls at startup and shutdown. */
export interface RunSkeleton<S> extends RunHost {
  chat(input: ChatInput): Promise<void>;
  rollForward(sessionId: string): Promise<RollForwardResult>;
  sweep(): Promise<SweepReport>;
  getRun(sessionId: string): Promise<S | undefined>;
  close(): Promise<void>;
}

export function runSkeleton<M, K extends string, S extends ResumableRun<M> & Counted<K>>(parts: RunSkeletonParts<M, K, S>): RunSkeleton<S> {
  const { store, core, states, leases, index, history, counter, limit, runTurn, resumeWaitMs, resumeStalledAfterMs, onError } = parts;
  if (!(resumeStalledAfterMs > resumeWaitMs)) {
    // Younger than a continue's wait for the lease, a stall may be a live continue about to take it.
    throw new TypeError(`resumeStalledAfterMs (${resumeStalledAfterMs}) must be longer than resumeWaitMs (${resumeWaitMs})`);
  }
  const counted = (s: S, n: number): S => ({ ...s, [counter]: n });

  const unlist = (sessionId: string, version: string | undefined) =>
    version ? index.remove(sessionId, version).catch(onError) : undefined;

  const { acquire, letGo } = sessionLease(states, leases, parts.empty, onError);

  /** True when the run is idle and owes the model a call for an answer nobody continued: a sweep does. */
  const stalledOnAnswer = (state: S | undefined): boolean =>
    state?.status === 'idle' && state.owed !== undefined && history.awaitsModelAfter(state, state.owed.toolCallId);

  /** Run a turn under `hold`, then persist and announce the outcome. Always ends the stream with `done`. */
  async function drive(hold: Hold, sse: SseSink, start: S): Promise<void> {
    const { sessionId } = hold;
    const messages = [...start.messages];
    const outcome = await runTurn({
      sessionId,
      sse,
      messages,
      used: start[counter],
      save: async (msgs, n) => {
        await states.update(sessionId, (cur) =>
          counted({ ...hold.check(cur), messages: [...msgs], status: 'running', owed: undefined }, n),
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
      const listed = (await index.add(sessionId, { requestId: record.requestId }).catch(onError)) ?? undefined;
      // Durable first, the lease let go in the same write: only a run that is on disk may be announced.
      await states.update(sessionId, (cur) =>
        counted(
          {
            ...hold.check(cur),
            messages,
            status: 'paused',
            paused: { requestId: record.requestId, toolCallId: record.toolCallId, [counter]: count },
            owed: undefined,
            lease: undefined,
            listed,
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
    await states.update(sessionId, (cur) => {
      const base = hold.check(cur);
      const owed = outcome.kind === 'aborted' ? base.owed : undefined;
      unlisted = owed ? undefined : base.listed;
      return counted(
        { ...base, messages, status: 'idle', paused: undefined, owed, lease: undefined, listed: owed ? base.listed : undefined },
        outcome.count,
      );
    });
    hold.settled = true;
    await unlist(sessionId, unlisted);
    if (outcome.kind === 'completed') sse.send('done', { reason: 'completed' });
    else if (outcome.kind === 'limit')
      sendFailure(
        sse,
        'max_rounds',
        `the model used all ${limit.calls} ${limit.words} without a final answer; send a new message to go on`,
      );
    else if (outcome.kind === 'error') reportFailure(sse, outcome.error, onError);
    else sse.end(); // aborted: the client left, nothing is listening
  }

  /** Busy is the other runner's (said in fixed words); anything else (the store down) is reported as what it is. */
  function refuse(sse: SseSink, err: unknown): void {
    if (err instanceof SessionBusyError) sendFailure(sse, 'session_busy', err.message);
    else reportFailure(sse, err, onError);
  }

  /** An answer always reaches the model: a question asked in the last call still gets one after it. */
  const afterAnswer = (state: S): S => counted(state, Math.min(state[counter], limit.calls - 1));

  const write = (record: InteractionRecord, content: string, hold?: Hold) => writeToolResult<M, S>(states, record, content, hold, history);

  const host: RunHost = {
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
        const out = await write(record, toolResultContent, answer.cancelled ? undefined : hold);
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
        if (!history.awaitsModelAfter(state, record.toolCallId)) {
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
      const out = await write(record, toolResultContent);
      await store.markToolResultWritten(record.requestId);
      await unlist(record.sessionId, out.unlisted);
    },
  };

  async function rollForward(sessionId: string): Promise<RollForwardResult> {
    const result = await rollForwardRun<M, S>({ store, states, index }, sessionId, history);
    // We wrote the ToolResult of a claimed resolution its claimer did not write: it may have died before
    // its audit line, so this one is written (at least once, never none; see AuditEntry.recovered).
    if (result.kind === 'rolled_forward' && result.wrote && result.record?.resolution) core.auditRecovered(result.record);
    if (result.kind !== 'needs_expiry') return result;
    // Overdue and never collected (its timer died with a process): the coordinator claims and audits it.
    const closed = await core.expireDue(sessionId);
    const after = await rollForwardRun<M, S>({ store, states, index }, sessionId, history);
    return closed && after.kind === 'nothing' ? { kind: 'expired', record: closed } : after;
  }

  /** The user's message starts a turn: running from its first call with the message at the end of history. */
  const userTurn = (sessionId: string, current: S | undefined, message: string): S => {
    const base = current ?? parts.empty(sessionId);
    const messages = [...base.messages, history.userMessage(message)];
    return counted({ ...base, status: 'running', paused: undefined, owed: undefined, listed: undefined, messages }, 0);
  };

  /** The door first (caller, session, message), before anything is stored, superseded or streamed. */
  async function chat(input: ChatInput): Promise<void> {
    let admitted: { sessionId: string; message: string };
    try {
      admitted = await core.admitChat(input);
    } catch (err) {
      if (typeof input.sse === 'function' || !(err instanceof AskUserError)) throw err;
      sendFailure(input.sse, err.code, err.message);
      input.sse.end();
      return;
    }
    await run(admitted.sessionId, admitted.message, typeof input.sse === 'function' ? input.sse() : input.sse);
  }

  async function run(sessionId: string, message: string, sse: SseSink): Promise<void> {
    const hold = leases.mint(sessionId);
    try {
      // A run at rest (new, or idle) takes the lease and the message in one write; its stale marker goes.
      let before: S | undefined;
      const taken = await acquire(hold, 0, (cur) => {
        before = cur;
        return !cur || cur.status === 'idle' ? userTurn(sessionId, cur, message) : undefined;
      });
      let start: S | undefined = taken.state;
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
  async function closeBefore(hold: Hold, sse: SseSink, message: string): Promise<S | undefined> {
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
    const closedResult = closed && written ? history.resultOf(written.messages, closed.toolCallId) : undefined;
    if (closed && closedResult) {
      sse.send('tool_result', { toolCallId: closed.toolCallId, name: ASK_USER_TOOL_NAME, ...closedResult });
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
  async function resumeStalled(sessionId: string, seen: S | undefined): Promise<boolean> {
    if (!stalledOnAnswer(seen) || Date.now() - seen!.owed!.since < resumeStalledAfterMs) return false;
    const hold = leases.mint(sessionId);
    try {
      let state: S;
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
  const isRunning = async (run: S | undefined) => run?.status === 'running' && (await leases.holds(run.lease));

  /** One sweep at a time: a timer firing while a slow sweep still runs joins it. */
  let sweeping: Promise<SweepReport> | undefined;
  const sweep = (): Promise<SweepReport> => {
    sweeping ??= sweepMarkers<S>({
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
      // A sweep's detached runs are stopped: nobody waits for them, and what they owe stays owed for the
      // next start. A run still streaming to a client ends with its stream.
      closing.abort();
      await sweeping?.catch(() => undefined);
      leases.close();
    },
  };
}
