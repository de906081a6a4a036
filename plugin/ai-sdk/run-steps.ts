/**
 * The bounded step loop of one turn: one `streamText` step at a time, ordinary tools run inside the AI
 * SDK, the calls that need the user's approval put on one card (§12, approval-tools.ts), else ask_user
 * calls handed to the coordinator. Every tool call of a step leaves it with exactly one result, except
 * the calls the run pauses on. It never persists or announces a pause: the
 * runtime saves the run first and only then writes `user_input_required`.
 */
import { asSchema, type LanguageModel, type ModelMessage, type Tool, type ToolResultPart, type ToolSet } from 'ai';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import type { Coordinator, InterceptResult } from '../core/coordinator.js';
import type { SseSink } from '../core/host.js';
import { askUserResultPart, resultText } from './history.js';
import { streamStep, type StepCall, type StepSettings } from './model-step.js';
import type { TurnOutcome } from '../runs/run-format.js';
import type { ToolLocale } from '../contract/tool-definition.js';
import {
  ASK_AFTER_APPROVAL,
  askForApproval,
  TOO_MANY_FOR_ONE_CARD,
  type ApprovalCall,
  type ApprovalPolicy,
} from '../tools/approval-policy.js';
import { errorText } from '../tools/loop-tool.js';
import { aiCallNeedsApproval, gateTools, runAiTool } from './approval-tools.js';

export interface StepsDeps {
  model: LanguageModel;
  /** The kit's coordinator: only its interception is needed here. */
  coordinator: Pick<Coordinator, 'intercept' | 'ask'>;
  maxSteps: number;
  /** Language of the approval card's title. */
  locale: ToolLocale;
  /** The kit's approval fields of a tool (§12), if any. */
  policyOf(name: string, tool: Tool): ApprovalPolicy | undefined;
  instructions?: string;
  settings?: StepSettings;
  idleTimeoutMs?: number;
}

export interface StepsInput {
  sessionId: string;
  sse: SseSink;
  /** History so far; grows in place as steps complete (an assistant turn and its results together). */
  messages: ModelMessage[];
  stepsUsed: number;
  tools: ToolSet;
  /** Tools the user approved for the rest of the session: their calls need no card. */
  alwaysAllowed: readonly string[];
  /** After each step the run goes on from, so the caller can checkpoint. */
  onStep?(messages: ModelMessage[], step: number): Promise<void>;
}

export async function runSteps(deps: StepsDeps, input: StepsInput): Promise<TurnOutcome> {
  const { sessionId, sse, messages, tools, onStep } = input;
  const { forModel, gated } = gateTools(tools, deps.policyOf);
  let step = input.stepsUsed;
  try {
    while (step < deps.maxSteps) {
      step++;
      const out = await streamStep({
        model: deps.model,
        messages,
        tools: forModel,
        signal: sse.signal,
        onText: (text) => sse.send('message_delta', { text }),
        ...(deps.instructions ? { instructions: deps.instructions } : {}),
        ...(deps.settings ? { settings: deps.settings } : {}),
        ...(deps.idleTimeoutMs !== undefined ? { idleTimeoutMs: deps.idleTimeoutMs } : {}),
      });
      if (sse.signal.aborted) return { kind: 'aborted', count: step };
      const assistant = out.messages.find((m) => m.role === 'assistant');
      if (out.calls.length === 0) {
        if (assistant) messages.push(assistant);
        return { kind: 'completed', count: step };
      }

      const results = resultsOf(out.messages);
      const asks = out.calls.filter((c) => c.toolName === ASK_USER_TOOL_NAME && ASK_USER_TOOL_NAME in tools);
      const cards: ApprovalCall[] = [];
      // The AI SDK ran the calls of tools that never need approval; the others are decided here, per call.
      const ran = ranToEnd(out.finishReason);
      for (const call of out.calls) {
        if (!ran || call.invalid || !gated.has(call.toolName)) continue;
        const tool = tools[call.toolName]!;
        const policy = deps.policyOf(call.toolName, tool);
        const args = isObject(call.input) ? call.input : {};
        const ctx = { sessionId, toolCallId: call.toolCallId, messages };
        if (!input.alwaysAllowed.includes(call.toolName) && (await aiCallNeedsApproval(tool, policy, args, ctx))) {
          const description = typeof tool.description === 'string' ? tool.description : call.toolName;
          cards.push({ toolCallId: call.toolCallId, tool: call.toolName, description, parameters: await schemaOf(tool), args, policy });
        } else {
          results.set(call.toolCallId, await runAiTool(call.toolName, tools[call.toolName], call.input, { ...ctx, signal: sse.signal }));
          if (sse.signal.aborted) return { kind: 'aborted', count: step };
        }
      }
      let pause: InterceptResult | undefined;
      const waiting = new Set<string>();
      if (cards.length > 0) {
        // One card per turn: the calls that need approval; an ask_user of the same step waits for after it.
        const asked = await askForApproval(deps.coordinator, cards, { sessionId, locale: deps.locale });
        for (const c of asked.refused) results.set(c.toolCallId, errorPart(c.toolCallId, c.tool, errorText(TOO_MANY_FOR_ONE_CARD(c.tool))));
        for (const c of asks) results.set(c.toolCallId, askUserResultPart(c.toolCallId, ASK_AFTER_APPROVAL, true));
        for (const r of asked.record.form.approvals ?? []) waiting.add(r.toolCallId);
        pause = { pause: true, interaction: asked.record, event: asked.event, ordinaryCalls: [], errorResults: [] };
      } else if (asks.length > 0) {
        const calls = asks.map((c) => ({
          id: c.toolCallId,
          type: 'function',
          function: { name: ASK_USER_TOOL_NAME, arguments: argumentsOf(c) },
        }));
        // The runner superseded any open card before this turn and holds the lease: no lookup needed.
        pause = await deps.coordinator.intercept(calls, { sessionId, noneOpen: true });
        // The coordinator's word on ask_user replaces whatever the AI SDK made of the call.
        for (const c of asks) results.delete(c.toolCallId);
        for (const r of pause.errorResults) results.set(r.toolCallId, askUserResultPart(r.toolCallId, r.content, true));
        if (pause.pause) waiting.add(pause.interaction!.toolCallId);
      }
      const content: ToolResultPart[] = [];
      for (const call of out.calls) {
        if (waiting.has(call.toolCallId)) continue; // its result comes with the answer
        content.push(results.get(call.toolCallId) ?? missingResult(call, out.finishReason));
      }
      if (assistant) messages.push(assistant);
      if (content.length > 0) messages.push({ role: 'tool', content });
      for (const part of content) sse.send('tool_result', { toolCallId: part.toolCallId, name: part.toolName, ...resultText(part) });
      if (pause?.pause) return { kind: 'paused', count: step, record: pause.interaction!, event: pause.event! };
      await onStep?.(messages, step);
    }
    return { kind: 'limit', count: step };
  } catch (error) {
    if (sse.signal.aborted) return { kind: 'aborted', count: step };
    return { kind: 'error', count: step, error: error as Error };
  }
}

function resultsOf(messages: readonly ModelMessage[]): Map<string, ToolResultPart> {
  const out = new Map<string, ToolResultPart>();
  for (const m of messages) if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') out.set(p.toolCallId, p);
  return out;
}

/** The arguments as the model sent them: the coordinator parses and judges them itself. */
const argumentsOf = (call: StepCall): string | Record<string, unknown> =>
  typeof call.input === 'string'
    ? call.input
    : call.input !== null && typeof call.input === 'object' && !Array.isArray(call.input)
      ? (call.input as Record<string, unknown>)
      : JSON.stringify(call.input ?? null);

/**
 * A call the AI SDK neither ran nor answered still gets a result, so the next request is valid: the
 * reply was cut off (the AI SDK runs tools only after a `stop` or `tool-calls` finish), or the tool has
 * no `execute`.
 */
function missingResult(call: StepCall, finishReason: string | undefined): ToolResultPart {
  const ran = ranToEnd(finishReason);
  const why = !ran
    ? `your reply was cut off (finish reason ${finishReason ?? 'none'}) before ${call.toolName} could run; it was not run, call it again if it is still needed`
    : call.invalid
      ? `the call to ${call.toolName} could not be read (an unknown tool or malformed arguments); use one of the tools you were given`
      : `the tool ${call.toolName} has no executor on this server; do not call it again`;
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: why } };
}

/** The AI SDK runs tools only after a `stop` or `tool-calls` finish: a reply cut off runs none, gated or not. */
const ranToEnd = (finishReason: string | undefined) => finishReason === 'stop' || finishReason === 'tool-calls';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A tool's input schema as JSON Schema (a zod schema converted by the AI SDK), for an editable call's card. */
async function schemaOf(tool: Tool): Promise<Record<string, unknown>> {
  try {
    const schema: unknown = await asSchema(tool.inputSchema).jsonSchema;
    return isObject(schema) ? schema : { type: 'object' };
  } catch {
    return { type: 'object' };
  }
}

const errorPart = (toolCallId: string, toolName: string, value: string): ToolResultPart => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: { type: 'error-text', value },
});
