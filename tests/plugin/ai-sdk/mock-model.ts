/**
 * A scripted AI SDK model for tests: the AI SDK's own MockLanguageModelV4, whose `doStream` plays one
 * scripted turn per call as language-model stream parts, and which keeps every prompt it was sent.
 */
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
export type Prompt = MockLanguageModelV4['doStreamCalls'][number]['prompt'];

export interface MockTurn {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
  /** End the stream without its finish part, as a dropped connection does. */
  cut?: boolean;
  /** Fail the call before any part, as an endpoint answering 500 does. */
  fail?: Error;
  /** Stream only after this settles. */
  hold?: Promise<unknown>;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

let calls = 0;

export function partsOf(turn: MockTurn): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (turn.text) {
    parts.push({ type: 'text-start', id: 't' });
    for (const piece of turn.text.match(/.{1,5}/gsu) ?? []) parts.push({ type: 'text-delta', id: 't', delta: piece });
    parts.push({ type: 'text-end', id: 't' });
  }
  for (const c of turn.toolCalls ?? []) {
    const input = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
    parts.push({ type: 'tool-call', toolCallId: c.id ?? `call-${++calls}`, toolName: c.name, input });
  }
  if (!turn.cut) {
    const unified = turn.toolCalls?.length ? 'tool-calls' : 'stop';
    parts.push({ type: 'finish', finishReason: { unified, raw: undefined }, usage });
  }
  return parts;
}

export interface MockModel {
  model: MockLanguageModelV4;
  /** Every prompt the model was sent, in order. */
  readonly prompts: Prompt[];
  enqueue(...turns: Array<MockTurn | ((prompt: Prompt) => MockTurn)>): void;
}

export function mockModel(turns: Array<MockTurn | ((prompt: Prompt) => MockTurn)> = [], fallback: MockTurn = { text: 'done' }): MockModel {
  const queue = [...turns];
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      const next = queue.shift() ?? fallback;
      const turn = typeof next === 'function' ? next(options.prompt) : next;
      await turn.hold;
      if (turn.fail) throw turn.fail;
      return { stream: simulateReadableStream({ chunks: partsOf(turn), initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  return {
    model,
    get prompts() {
      return model.doStreamCalls.map((c) => c.prompt);
    },
    enqueue: (...more) => void queue.push(...more),
  };
}

/** The tool messages of a prompt, flattened: what the model read for each call. */
export function toolResultsOf(prompt: Prompt): Array<{ toolCallId: string; toolName: string; output: { type: string; value?: unknown } }> {
  return prompt.flatMap((m) =>
    m.role === 'tool'
      ? m.content.flatMap((p) =>
          p.type === 'tool-result' ? [p as { toolCallId: string; toolName: string; output: { type: string; value?: unknown } }] : [],
        )
      : [],
  );
}
