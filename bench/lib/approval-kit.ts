/**
 * What the approval benchmark (bench/approval.ts) adds to the cycle's server and model: a host tool that
 * needs the user's approval (contract §12), and the user messages the instant model answers with one or
 * two calls of it instead of `ask_user`. The tool does next to nothing, so what a card costs is the kit's.
 */
import type { LoopTool } from '../../plugin/loop/index.js';

/** A name of its own, so it never clashes with a tool of the demo's in one tool list. */
export const APPROVAL_TOOL_NAME = 'bench_deploy';

/** The arguments of every call the instant model makes of the tool. */
export const APPROVAL_ARGUMENTS = { branch: 'feat/bench', environment: 'preview' } as const;

/** The user messages that make the instant model call the tool, and how many calls each turn holds. */
export const APPROVAL_MESSAGES = { one: 'Deploy one branch.', two: 'Deploy two branches.' } as const;

/** Calls of the tool the instant model makes for a user message: 0 for any other message. */
export function approvalCallsFor(message: unknown): number {
  if (message === APPROVAL_MESSAGES.one) return 1;
  if (message === APPROVAL_MESSAGES.two) return 2;
  return 0;
}

/** Always on an approval card; runs at once and answers a short JSON text. */
export const benchApprovalTool: LoopTool = {
  name: APPROVAL_TOOL_NAME,
  description: 'Deploy a branch to a preview environment (the bench pretends).',
  parameters: {
    type: 'object',
    properties: { branch: { type: 'string', minLength: 1 }, environment: { enum: ['staging', 'preview'] } },
    required: ['branch', 'environment'],
    additionalProperties: false,
  },
  needsApproval: true,
  run: (args) => JSON.stringify({ deployed: true, ...args }),
};
