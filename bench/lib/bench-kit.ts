/**
 * What every plugin benchmark builds the same way: the question the model asks, an audit sink that does
 * the serialisation work of the default one without the terminal I/O, and an instant RunHost.
 */
import { consoleAuditLogger, type PendingStore, type RunHost } from '../../plugin/index.js';

/** A typical choice question: a title, a description and three options, one recommended. */
export const QUESTION = {
  title: 'Which strategy should I use for the migration?',
  description: 'The schema change touches three tables; pick how careful the first step should be.',
  mode: 'single',
  options: [
    { id: 'safe', label: 'Analyse first', description: 'Read-only dry run, then report', recommended: true },
    { id: 'implement', label: 'Implement directly' },
    { id: 'skip', label: 'Skip this table' },
  ],
} as const;

export const QUESTION_ARGUMENTS = JSON.stringify(QUESTION);

/** The default audit sink formats a JSON line per entry; this one formats it too, then drops it. */
export const discardingAudit = () => consoleAuditLogger(() => {});

/**
 * A host as cheap as a host can be while still doing what the contract asks of one: mark the ToolResult
 * written, send `tool_result`, then `done`. What the continue route costs beyond it is the plugin's own.
 */
export function instantHost(store: () => PendingStore): RunHost {
  return {
    isResumable: async () => true,
    async resume(ctx) {
      await store().markToolResultWritten(ctx.record.requestId);
      ctx.sse.send('tool_result', { toolCallId: ctx.record.toolCallId, name: 'ask_user', content: ctx.toolResultContent, isError: false });
      ctx.sse.send('done', { reason: ctx.answer.cancelled ? 'cancelled' : 'completed' });
    },
    async closed() {},
  };
}

/** Resolve after the event loop has had a turn, so timers and sockets settle between phases. */
export const settle = (ms = 50) => new Promise<void>((resolve) => setTimeout(resolve, ms));
