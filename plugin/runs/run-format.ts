/**
 * What a runtime brings to the engine (run-engine.ts): its run format, how its history of `M` reads and
 * takes a ToolResult, and its turn runner, one turn of model calls. The plugin loop brings Chat Completions
 * messages and its rounds (plugin/loop/), the AI SDK runtime its ModelMessages and steps (plugin/ai-sdk/);
 * the leases, pauses, answers, closings and sweeps around them are the engine's, once.
 */
import type { UserInputRequired } from '../contract/schema.js';
import type { SseSink } from '../core/host.js';
import type { InteractionRecord } from '../store/types.js';
import type { RunLease } from './run-lease.js';
import type { StoredRun } from './stored-runs.js';

/** A resumable run of any runtime: its history in `M`, paused on a call, owing the model an answer. */
export type ResumableRun<M> = StoredRun & {
  status: 'idle' | 'running' | 'paused';
  messages: M[];
  /** Set while paused: the ask_user call waiting for its ToolResult. */
  paused?: { requestId: string; toolCallId: string };
  /**
   * An accepted answer whose ToolResult is written and that the model has not yet run with; still set on an
   * idle run, its runner died in between and a sweep continues it.
   */
  owed?: { toolCallId: string; /** When the answer was accepted (its claim), epoch ms. */ since: number };
  /** The runner working on the session now; absent while nobody runs it. */
  lease?: RunLease;
  /** The version of the session's paused-run marker while the run is listed for sweeps. */
  listed?: string;
  /** The run's stream (contract §11): its id and the last frame's seq, so a continue numbers on. */
  stream?: { runId: string; seq: number };
  /** Calls the user approved (§12) that have not run yet: they run before the model's next call. */
  approved?: ApprovedCall[];
  /** Tools the user approved for the rest of the session ("always", §12). */
  alwaysAllowed?: string[];
};

/**
 * An approved call waiting to run (contract §12), recorded in the same write as the card's decisions. It
 * runs with the arguments of its call in the history, where an edit of the user's is written too.
 */
export interface ApprovedCall {
  toolCallId: string;
  tool: string;
  /** "Approved, about to run" is recorded: found set after a crash, the call may have run already. */
  running?: true;
}

/** A tool call's result as the history takes it: the text the model reads, and the tool's name. */
export interface CallResult {
  toolCallId: string;
  name: string;
  content: string;
  isError: boolean;
}

/** What running an approved call gave: its text for the stream, and the history with its result at the call's place. */
export interface ApprovedRun<M> {
  content: string;
  isError: boolean;
  into(messages: M[]): M[];
}

/** How a runtime runs the calls the user approved, which the engine schedules at most once each. */
export interface ApprovalRunner<M> {
  run(call: ApprovedCall, ctx: { sessionId: string; sse: SseSink; messages: readonly M[] }): Promise<ApprovedRun<M>>;
  /** The tool says running it twice does no harm (`idempotent: true`). */
  idempotent(tool: string, ctx: { sessionId: string; sse: SseSink }): boolean;
}

/**
 * A runtime's runs of history `M` as the engine reads and writes them. Every change is idempotent by tool
 * call id: a second writer finds the result present and changes nothing.
 */
export interface RunFormat<M, S extends ResumableRun<M>> {
  /** A new session's run. */
  newRun(sessionId: string): S;
  /** Model calls the run used in its current turn (stored as `round` in the loop's runs, `step` in the AI SDK's). */
  callsOf(run: S): number;
  /** The run with `calls` used; a paused run's pause records the same count. */
  withCalls(run: S, calls: number): S;
  /** The user's message as a history entry. */
  userMessage(text: string): M;
  hasToolResult(messages: readonly M[], toolCallId: string): boolean;
  /** Tool call ids with no result yet; a history the model may be sent has none. */
  unansweredToolCalls(messages: readonly M[]): string[];
  /** The history with a result for `toolCallId` at its call's place: ask_user's, unless `call` names another tool. */
  withToolResult(messages: M[], toolCallId: string, content: string, call?: { name: string; isError: boolean }): M[];
  /** The history with the arguments of the model's call `toolCallId` replaced (an approval card's edit, §12). */
  withCallArguments(messages: M[], toolCallId: string, args: Record<string, unknown>): M[];
  /** The run's history ends with the answered turn of `toolCallId`: the model is owed a call. */
  awaitsModelAfter(run: S | undefined, toolCallId: string): boolean;
}

/** How one turn of model calls ended; `count` is the calls used in the turn so far. */
export type TurnOutcome =
  | { kind: 'completed' | 'limit' | 'aborted'; count: number }
  | { kind: 'error'; count: number; error: Error }
  | { kind: 'paused'; count: number; record: InteractionRecord; event: UserInputRequired };

export interface TurnInput<M> {
  sessionId: string;
  sse: SseSink;
  /** The history so far, changed in place as calls complete. */
  messages: M[];
  /** Calls already used in this turn. */
  used: number;
  /** Tools the user approved for the rest of the session: their calls need no card (§12). */
  alwaysAllowed: readonly string[];
  /** Records each call the turn goes on from (its history and calls used), under the run's lease. */
  save(messages: M[], calls: number): Promise<void>;
}

/** One turn: call the model from `messages` until it answers, asks the user, fails or runs out of calls. */
export type TurnRunner<M> = (input: TurnInput<M>) => Promise<TurnOutcome>;
