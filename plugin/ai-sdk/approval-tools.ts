/**
 * Tool approval (contract §12) in the AI SDK runtime. A tool that may need approval (its own AI SDK
 * `needsApproval`, or the kit's `ApprovalPolicy` for it) is handed to `streamText` without its `execute`,
 * so the AI SDK only reports the call; the runtime then decides per call, runs those that need no card
 * itself, and puts the others on the turn's one card. The AI SDK's own approval round trip
 * (`tool-approval-request` parts in the history) is never used: the card and its exactly-once answer are
 * the kit's, and the history stays plain tool calls and results any provider takes.
 */
import type { ModelMessage, Tool, ToolResultPart, ToolSet } from 'ai';
import { errorText } from '../tools/loop-tool.js';
import { callNeedsApproval, type ApprovalPolicy } from '../tools/approval-policy.js';

/** The kit's approval fields of tools built by `fromLoopTools`, by the AI SDK tool object. */
const POLICIES = new WeakMap<object, ApprovalPolicy>();

/** Keep a LoopTool's approval fields with the AI SDK tool made from it. */
export function keepPolicy<T extends object>(tool: T, policy: ApprovalPolicy): T {
  POLICIES.set(tool, policy);
  return tool;
}

/** A tool's approval fields: those it was made with (`fromLoopTools`), over the host's `approval` option. */
export const policyOf = (tool: object | undefined, given: ApprovalPolicy | undefined): ApprovalPolicy | undefined => {
  const kept = tool ? POLICIES.get(tool) : undefined;
  return kept || given ? { ...given, ...kept } : undefined;
};

/** A tool whose calls may wait for approval: the AI SDK's `needsApproval` or the kit's. */
const mayNeedApproval = (tool: Tool, policy: ApprovalPolicy | undefined) => Boolean(tool.needsApproval ?? policy?.needsApproval);

/** The tools as `streamText` gets them: those that may need approval without `execute` (and without the AI SDK's own approval). */
export function gateTools(
  tools: ToolSet,
  policies: (name: string, tool: Tool) => ApprovalPolicy | undefined,
): { forModel: ToolSet; gated: Set<string> } {
  const forModel: ToolSet = {};
  const gated = new Set<string>();
  for (const [name, tool] of Object.entries(tools)) {
    if (!mayNeedApproval(tool, policies(name, tool))) {
      forModel[name] = tool;
      continue;
    }
    const { execute: _run, needsApproval: _ask, ...reported } = tool;
    forModel[name] = reported as Tool;
    gated.add(name);
  }
  return { forModel, gated };
}

/** True when this call waits for a card: the tool's AI SDK `needsApproval` decides, else the kit's policy. */
export async function aiCallNeedsApproval(
  tool: Tool,
  policy: ApprovalPolicy | undefined,
  args: Record<string, unknown>,
  ctx: { sessionId: string; toolCallId: string; messages: ModelMessage[] },
): Promise<boolean> {
  const own = tool.needsApproval;
  if (own === undefined) return callNeedsApproval(policy, args, ctx);
  if (typeof own !== 'function') return own === true;
  try {
    return (await own(args as never, { toolCallId: ctx.toolCallId, messages: ctx.messages, context: {} as never })) !== false;
  } catch {
    return true;
  }
}

/**
 * Run an AI SDK tool as `streamText` would have: its last output (a streaming tool yields several), turned
 * into the model's output by its `toModelOutput`, else text or JSON; a throw becomes an error result.
 */
export async function runAiTool(
  name: string,
  tool: Tool | undefined,
  input: unknown,
  options: { toolCallId: string; messages: ModelMessage[]; signal: AbortSignal },
): Promise<ToolResultPart> {
  const part = (output: ToolResultPart['output']): ToolResultPart => ({
    type: 'tool-result',
    toolCallId: options.toolCallId,
    toolName: name,
    output,
  });
  if (!tool?.execute) return part({ type: 'error-text', value: errorText(`the tool ${name} is not offered on this server now`) });
  try {
    const run = tool.execute(input as never, {
      toolCallId: options.toolCallId,
      messages: options.messages,
      abortSignal: options.signal,
      context: {} as never,
    });
    let output: unknown;
    if (run !== null && typeof run === 'object' && Symbol.asyncIterator in run) {
      for await (const value of run as AsyncIterable<unknown>) output = value;
    } else {
      output = await run;
    }
    if (tool.toModelOutput) return part(await tool.toModelOutput({ toolCallId: options.toolCallId, input: input as never, output }));
    return part(typeof output === 'string' ? { type: 'text', value: output } : { type: 'json', value: (output ?? null) as never });
  } catch (error) {
    return part({ type: 'error-text', value: errorText(`${name} failed: ${(error as Error)?.message ?? String(error)}`) });
  }
}
