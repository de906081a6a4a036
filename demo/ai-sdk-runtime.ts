/**
 * The demo on the Vercel AI SDK (ASK_USER_RUNTIME=ai-sdk): the kit's AI SDK runtime pointed at the same
 * endpoint the demo's `openai` client uses, with the demo's tools, through the AI SDK's OpenAI-compatible
 * provider on Chat Completions, or its OpenAI provider on the Responses API (ASK_USER_AI_SDK_API=responses;
 * `store: false`, so the provider keeps nothing of the run). Its run state holds the AI SDK's own messages;
 * the page's history redraw reads them through `loopView`, in the shape the plugin loop stores, so the page
 * and its tests do not care.
 */
import type OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { aiSdkRuntime, fromLoopTools, type AiRunState, type AiSdkRuntime } from 'ask-user-kit/plugin/ai-sdk';
import type { PendingStore, RuntimeFactory } from 'ask-user-kit/plugin';
import type { AgentLoop, LoopTool, RunState } from 'ask-user-kit/plugin/loop';

/** Which API the AI SDK runtime's model speaks: Chat Completions, or the OpenAI Responses API. */
export type DemoAiSdkApi = 'chat' | 'responses';

export interface DemoAiSdkOptions {
  client: OpenAI;
  model: string;
  /** The demo's tools, or a live list read per run. */
  tools: readonly LoopTool[] | ((sessionId: string) => readonly LoopTool[]);
  maxRounds: number;
  locale: 'zh' | 'en';
  system: string;
  /** @default 'chat' */
  api?: DemoAiSdkApi;
  stateStore?: PendingStore;
  modelIdleTimeoutMs?: number;
  onError?: (err: unknown) => void;
}

/**
 * Loaded only for the Responses API: `@ai-sdk/openai` builds a default provider from the environment when
 * it is imported, and an empty OPENAI_BASE_URL (which the demo reads as unset) would stop every runtime.
 */
export async function demoAiSdkRuntime(o: DemoAiSdkOptions): Promise<RuntimeFactory<AiSdkRuntime>> {
  const endpoint = { baseURL: o.client.baseURL, ...(o.client.apiKey ? { apiKey: o.client.apiKey } : {}) };
  const responses = o.api === 'responses';
  // The OpenAI provider asks a known reasoning model for its encrypted reasoning itself when store is false.
  const model = responses
    ? (await import('@ai-sdk/openai')).createOpenAI({ ...endpoint, name: 'demo' }).responses(o.model)
    : createOpenAICompatible({ name: 'demo', ...endpoint }).chatModel(o.model);
  return aiSdkRuntime({
    model,
    // Images go to a Responses model as they are; a Chat Completions provider would send them as base64 text.
    tools: fromLoopTools(o.tools, { media: responses ? 'parts' : 'text' }),
    maxSteps: o.maxRounds,
    locale: o.locale,
    system: o.system,
    settings: { maxRetries: 1, ...(responses ? { providerOptions: { openai: { store: false } } } : {}) },
    ...(o.stateStore ? { stateStore: o.stateStore } : {}),
    ...(o.modelIdleTimeoutMs !== undefined ? { modelIdleTimeoutMs: o.modelIdleTimeoutMs } : {}),
    ...(o.onError ? { onError: o.onError } : {}),
  });
}

type Part = {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: { type: string; value: unknown };
};
const partsOf = (content: unknown): Part[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : ((content as Part[]) ?? []);
/** What the page shows of a tool result: its text; a content result's files named, never their base64. */
function outputText(output: Part['output']): string {
  if (output?.type === 'text' || output?.type === 'error-text') return String(output.value);
  if (output?.type === 'content' && Array.isArray(output.value)) {
    return (output.value as Array<{ type: string; text?: string; mediaType?: string }>)
      .map((p) =>
        p.type === 'text' ? (p.text ?? '') : `[${p.mediaType?.startsWith('image') ? 'image' : 'file'} ${p.mediaType ?? 'unknown type'}]`,
      )
      .join('\n');
  }
  return JSON.stringify(output?.value ?? null);
}

/**
 * An AI SDK run in the plugin loop's shape: user text, assistant text with its tool calls, one tool message per
 * result; and the session's "always" approvals (§12), which the session view lists.
 */
export function loopView(run: AiRunState): RunState {
  const messages: ChatCompletionMessageParam[] = [];
  for (const m of run.messages) {
    const parts = partsOf(m.content);
    const said = parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('');
    if (m.role === 'user') messages.push({ role: 'user', content: said });
    else if (m.role === 'assistant') {
      const calls = parts.filter((p) => p.type === 'tool-call');
      messages.push({
        role: 'assistant',
        content: said || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: c.toolCallId!,
                type: 'function' as const,
                function: { name: c.toolName!, arguments: JSON.stringify(c.input ?? {}) },
              })),
            }
          : {}),
      });
    } else if (m.role === 'tool') {
      for (const p of parts)
        if (p.type === 'tool-result') messages.push({ role: 'tool', tool_call_id: p.toolCallId!, content: outputText(p.output) });
    }
  }
  return {
    sessionId: run.sessionId,
    status: run.status,
    messages,
    round: run.step,
    rev: run.rev,
    updatedAt: run.updatedAt,
    ...(run.paused ? { paused: { requestId: run.paused.requestId, toolCallId: run.paused.toolCallId, round: run.paused.step } } : {}),
    ...(run.alwaysAllowed?.length ? { alwaysAllowed: [...run.alwaysAllowed] } : {}),
  };
}

/** The AI SDK runtime with the loop's surface the demo uses (chat, sweep, getRun in the loop's shape). */
export function asDemoLoop(runtime: AiSdkRuntime): AgentLoop {
  return {
    ...runtime,
    getRun: async (sessionId) => {
      const run = await runtime.getRun(sessionId);
      return run ? loopView(run) : undefined;
    },
    rollForward: async (sessionId) => {
      await runtime.rollForward(sessionId);
      return { kind: 'nothing' };
    },
  };
}
