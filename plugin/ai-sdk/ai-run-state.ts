/**
 * A session's AI SDK run, persisted in the PendingStore under its own prefix (`aisdk:<sessionId>`), so
 * any instance sharing the store continues it exactly where it paused. The history is the AI SDK's
 * `ModelMessage[]` as sent to `streamText`. Every write is a compare-and-set on the store's version, and
 * the session lease (plugin/runs/run-lease.ts) lives in the same value, as in the plugin's own loop.
 */
import type { ModelMessage } from 'ai';
import type { RunLease } from '../runs/run-lease.js';
import type { ApprovedCall } from '../runs/run-format.js';
import { StoredRuns } from '../runs/stored-runs.js';
import type { PendingStore } from '../store/types.js';

export type AiRunStatus = 'idle' | 'running' | 'paused';

export interface AiRunState {
  sessionId: string;
  status: AiRunStatus;
  /** User, assistant and tool messages exactly as the AI SDK takes them; instructions stay outside. */
  messages: ModelMessage[];
  /** Set while paused: the ask_user call waiting for its ToolResult. */
  paused?: { requestId: string; toolCallId: string; step: number };
  /** Model steps used in the current turn; a resumed pause counts on: the engine's call count. */
  step: number;
  /** An accepted answer whose ToolResult is written but the model has not yet run with (see RunState.owed). */
  owed?: { toolCallId: string; since: number };
  lease?: RunLease;
  /** Version of the session's paused-run marker while the run is listed for sweeps. */
  listed?: string;
  /** The run's stream (contract §11): its id and the last frame's seq. */
  stream?: { runId: string; seq: number };
  /** Calls the user approved on a card (§12) that have not run yet; they run before the model's next call. */
  approved?: ApprovedCall[];
  /** Tools the user approved for the rest of the session ("always", §12). */
  alwaysAllowed?: string[];
  rev: number;
  updatedAt: number;
}

/** The AI SDK runs, compare-and-set exactly as the plugin loop's runs (plugin/runs/stored-runs.ts), under their own prefix. */
export class AiRunStates extends StoredRuns<AiRunState> {
  constructor(store: PendingStore, keyPrefix = 'aisdk:') {
    super(store, { keyPrefix });
  }
}

export const emptyAiRun = (sessionId: string): AiRunState => ({ sessionId, status: 'idle', messages: [], step: 0, rev: 0, updatedAt: 0 });
