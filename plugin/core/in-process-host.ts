/**
 * A RunHost for servers whose agent loop lives in memory: the loop pauses by awaiting
 * `waitForAnswer(requestId)`, and the continue route resolves that promise. Such a run cannot outlive
 * its process, so an interaction is resumable only while a live waiter exists here; after a restart the
 * persisted card shows `resumable: false` and continue answers 409 `not_resumable`.
 */
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import type { ClosedContext, ResumeContext, RunHost, SseSink } from './host.js';
import type { Answer, ResolvedStatus } from '../contract/schema.js';
import { cancelAnswerFor } from '../contract/tool-result.js';
import type { InteractionRecord, PendingStore } from '../store/types.js';

export interface InProcessAnswer {
  record: InteractionRecord;
  status: ResolvedStatus;
  answer: Answer;
  /** Append this as the `role: "tool"` message for `record.toolCallId` before calling the model again. */
  toolResultContent: string;
  /**
   * The continue response's stream, for `answered`: `interaction_resolved` and `tool_result` are already
   * written; write the continued run on it and finish with `done` (which ends it). For `cancelled` the
   * stream already got `done { reason: "cancelled" }`: append the ToolResult and stop, no model call.
   * Absent for `expired` and `superseded` (nobody is listening): append the ToolResult and stop.
   */
  sse?: SseSink;
}

export interface InProcessHostOptions {
  /** Where `toolResultWritten` is recorded once the waiter has the ToolResult. */
  store?: PendingStore;
  onError?: (err: unknown) => void;
}

export class InProcessHostError extends Error {
  constructor(
    readonly code: 'already_waiting' | 'aborted',
    message: string,
  ) {
    super(message);
    this.name = 'InProcessHostError';
  }
}

interface Waiter {
  resolve(value: InProcessAnswer): void;
  reject(err: unknown): void;
}

export interface InProcessHost extends RunHost {
  /** Pause until `requestId` is answered, cancelled or closed. Aborting `signal` withdraws the waiter. */
  waitForAnswer(requestId: string, signal?: AbortSignal): Promise<InProcessAnswer>;
  /** Whether a live waiter exists for `requestId` in this process. */
  hasWaiter(requestId: string): boolean;
  /** Reject every waiter (on shutdown). */
  abortAll(reason?: string): void;
}

export function createInProcessHost(options: InProcessHostOptions = {}): InProcessHost {
  const { store, onError = () => {} } = options;
  const waiters = new Map<string, Waiter>();

  const take = (requestId: string) => {
    const waiter = waiters.get(requestId);
    waiters.delete(requestId);
    return waiter;
  };

  const markWritten = async (requestId: string) => {
    try {
      await store?.markToolResultWritten(requestId);
    } catch (err) {
      onError(err);
    }
  };

  return {
    async isResumable(record) {
      return waiters.has(record.requestId);
    },

    async resume({ record, answer, toolResultContent, sse }: ResumeContext) {
      const waiter = take(record.requestId);
      // The waiter's loop holds the history; handing it the result is the write, so mark it first: once
      // the loop wakes it may end the stream at any moment.
      if (!waiter) {
        // The waiter went away between the resumable check and the claim: no run will read a ToolResult,
        // so none is announced; say so instead of pretending.
        sse.send('error', { code: 'not_resumable', message: 'The paused run is no longer running in this server; start the task again.' });
        sse.send('done', { reason: 'error' });
        return;
      }
      await markWritten(record.requestId);
      sse.send('tool_result', { toolCallId: record.toolCallId, name: ASK_USER_TOOL_NAME, content: toolResultContent, isError: false });
      const status = record.resolution?.status ?? (answer.cancelled ? 'cancelled' : 'answered');
      waiter.resolve({ record, status, answer, toolResultContent, sse });
      if (answer.cancelled) {
        sse.send('done', { reason: 'cancelled' });
        return;
      }
      // The host's loop writes the continued run; the route must keep the stream open until it is done.
      if (!sse.signal.aborted) await new Promise<void>((r) => sse.signal.addEventListener('abort', () => r(), { once: true }));
    },

    async closed({ record, toolResultContent }: ClosedContext) {
      const waiter = take(record.requestId);
      if (!waiter) return;
      const status = record.resolution?.status ?? 'expired';
      await markWritten(record.requestId);
      waiter.resolve({ record, status, answer: cancelAnswerFor(record.form), toolResultContent });
    },

    waitForAnswer(requestId, signal) {
      if (waiters.has(requestId)) {
        return Promise.reject(
          new InProcessHostError('already_waiting', `a run is already waiting for ${requestId}; wait once per interaction`),
        );
      }
      if (signal?.aborted) return Promise.reject(new InProcessHostError('aborted', 'the wait was aborted before it began'));
      return new Promise<InProcessAnswer>((resolve, reject) => {
        const onAbort = () => {
          if (waiters.get(requestId) !== waiter) return;
          waiters.delete(requestId);
          reject(new InProcessHostError('aborted', `the wait for ${requestId} was aborted`));
        };
        const waiter: Waiter = {
          resolve: (v) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(v);
          },
          reject,
        };
        waiters.set(requestId, waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },

    hasWaiter: (requestId) => waiters.has(requestId),

    abortAll(reason = 'the server is shutting down') {
      for (const [id, waiter] of waiters) waiter.reject(new InProcessHostError('aborted', `${reason} (${id})`));
      waiters.clear();
    },
  };
}
