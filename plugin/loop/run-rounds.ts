/**
 * The bounded tool loop of one turn: call the model, stream its text, run the ordinary tool calls, put the
 * calls that need the user's approval on one card (§12) or else hand `ask_user` calls to the coordinator,
 * and stop when the model answers without tools, asks the user, or runs out of rounds. It never persists or announces a pause itself: the caller saves the run first and
 * only then writes `user_input_required`, so a continue can never arrive for a run that is not on disk.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ASK_USER_TOOL_NAME } from '../contract/tool-definition.js';
import type { SseSink } from '../core/host.js';
import type { Coordinator, InterceptResult } from '../core/coordinator.js';
import { streamModelRound } from './model-round.js';
import { streamResponsesRound, type ResponsesWire } from './responses-round.js';
import { withParts } from './history-extras.js';
import type { ToolLocale } from '../contract/tool-definition.js';
import { parseToolArguments, type ToolCallResult, type ToolRegistry } from './tool-registry.js';
import {
  ASK_AFTER_APPROVAL,
  askForApproval,
  callNeedsApproval,
  TOO_MANY_FOR_ONE_CARD,
  type ApprovalCall,
} from '../tools/approval-policy.js';
import { errorText } from '../tools/loop-tool.js';
import type { AccumulatedToolCall } from './tool-call-accumulator.js';
import type { TurnOutcome } from '../runs/run-format.js';

export interface RoundsDeps {
  client: OpenAI;
  model: string;
  registry: ToolRegistry;
  coordinator: Pick<Coordinator, 'intercept' | 'ask'>;
  maxRounds: number;
  /** Extra Chat Completions request fields. */
  request?: Record<string, unknown>;
  /** Longest silence allowed from the model endpoint. */
  modelIdleTimeoutMs?: number;
  /** Which OpenAI API the model is called through. @default 'chat' */
  api?: ModelApi;
  /** Language of ask_user's description (the Responses tool is built per call from it). */
  locale?: ToolLocale;
  /** How Responses requests are made (`store`, encrypted reasoning); one per loop. @default store false, reasoning asked for */
  responses?: ResponsesWire;
}

export type ModelApi = 'chat' | 'responses';

export interface RoundsInput {
  sessionId: string;
  sse: SseSink;
  /** History so far; mutated in place as rounds complete (assistant message and its results together). */
  messages: ChatCompletionMessageParam[];
  /** Rounds already used in this turn. */
  roundsUsed: number;
  /** Tools offered this turn (ask_user included only when allowed). */
  tools: ChatCompletionTool[];
  /** Tools the user approved for the rest of the session: their calls need no card. */
  alwaysAllowed: readonly string[];
  /** Called after each round that continues, so the caller can checkpoint. */
  onRound?(messages: ChatCompletionMessageParam[], round: number): Promise<void>;
}

export async function runRounds(deps: RoundsDeps, input: RoundsInput): Promise<TurnOutcome> {
  const { client, model, registry, maxRounds, request, modelIdleTimeoutMs } = deps;
  const { sessionId, sse, messages, tools, onRound } = input;
  const offered = new Set(tools.map((t) => (t.type === 'function' ? t.function.name : '')));
  let round = input.roundsUsed;
  try {
    while (round < maxRounds) {
      round++;
      const call = {
        client,
        model,
        messages,
        tools,
        signal: sse.signal,
        extra: request,
        ...(modelIdleTimeoutMs !== undefined ? { idleTimeoutMs: modelIdleTimeoutMs } : {}),
        onText: (text: string) => sse.send('message_delta', { text }),
      };
      const out =
        deps.api === 'responses'
          ? await streamResponsesRound({ ...call, locale: deps.locale ?? 'zh', ...(deps.responses ? { wire: deps.responses } : {}) })
          : await streamModelRound(call);
      if (sse.signal.aborted) return { kind: 'aborted', count: round };
      if (out.toolCalls.length === 0) {
        messages.push(out.assistant);
        return { kind: 'completed', count: round };
      }

      const results = new Map<string, ToolCallResult>();
      const asks = out.toolCalls.filter((c) => c.name === ASK_USER_TOOL_NAME && offered.has(ASK_USER_TOOL_NAME));
      const gated: ApprovalCall[] = [];
      // Ordinary calls run first, so the question reaches the user only once the turn's other work is done.
      for (const call of out.toolCalls) {
        if (asks.includes(call)) continue;
        const approval = await approvalCallOf(registry, call, { sessionId, offered, alwaysAllowed: input.alwaysAllowed });
        if (approval) {
          gated.push(approval);
          continue;
        }
        results.set(call.id, await registry.run(call, { sessionId, signal: sse.signal, sse }, offered));
        if (sse.signal.aborted) return { kind: 'aborted', count: round };
      }
      let pause: InterceptResult | undefined;
      if (gated.length > 0) {
        // One card per turn: the calls that need approval; an ask_user of the same turn waits for after it.
        const asked = await askForApproval(deps.coordinator, gated, { sessionId, locale: deps.locale ?? 'zh' });
        for (const c of asked.refused) results.set(c.toolCallId, refusedCall(c.toolCallId, c.tool, TOO_MANY_FOR_ONE_CARD(c.tool)));
        for (const c of asks) results.set(c.id, refusedCall(c.id, ASK_USER_TOOL_NAME, ASK_AFTER_APPROVAL));
        pause = { pause: true, interaction: asked.record, event: asked.event, ordinaryCalls: [], errorResults: [] };
      } else if (asks.length > 0) {
        const calls = asks.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        // The runner superseded any open card before this turn and holds the lease: no lookup needed.
        pause = await deps.coordinator.intercept(calls, { sessionId, noneOpen: true });
        for (const r of pause.errorResults) results.set(r.toolCallId, r);
      }

      messages.push(out.assistant);
      const waiting = pause?.pause ? pause.interaction!.toolCallId : undefined;
      for (const call of out.toolCalls) {
        const r = results.get(call.id);
        if (!r) continue; // the paused ask_user call or a call on the approval card: its result comes with the answer
        // Content parts (images, …) stay with the message for the Responses API; Chat Completions gets the text.
        messages.push(withParts({ role: 'tool', tool_call_id: r.toolCallId, content: r.content }, r.parts));
        sse.send('tool_result', { toolCallId: r.toolCallId, name: r.name, content: r.content, isError: r.isError });
      }
      if (pause?.pause && waiting) return { kind: 'paused', count: round, record: pause.interaction!, event: pause.event! };
      await onRound?.(messages, round);
    }
    return { kind: 'limit', count: round };
  } catch (error) {
    if (sse.signal.aborted) return { kind: 'aborted', count: round };
    return { kind: 'error', count: round, error: error as Error };
  }
}

/** The call as it goes on an approval card, or undefined when it runs (or fails) without one. */
async function approvalCallOf(
  registry: ToolRegistry,
  call: AccumulatedToolCall,
  { sessionId, offered, alwaysAllowed }: { sessionId: string; offered: ReadonlySet<string>; alwaysAllowed: readonly string[] },
): Promise<ApprovalCall | undefined> {
  const tool = registry.get(call.name);
  // An unknown tool or unreadable arguments never run: the registry tells the model so, with no card.
  if (!tool || !offered.has(call.name) || alwaysAllowed.includes(call.name)) return undefined;
  const parsed = parseToolArguments(call.arguments);
  if (!parsed.ok || !(await callNeedsApproval(tool, parsed.args, { sessionId, toolCallId: call.id }))) return undefined;
  return {
    toolCallId: call.id,
    tool: call.name,
    description: tool.description,
    parameters: tool.parameters,
    args: parsed.args,
    policy: tool,
  };
}

const refusedCall = (toolCallId: string, name: string, message: string): ToolCallResult => ({
  toolCallId,
  name,
  content: name === ASK_USER_TOOL_NAME ? message : errorText(message),
  isError: true,
});
