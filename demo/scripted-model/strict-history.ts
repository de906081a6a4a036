/**
 * The checks strict OpenAI-compatible endpoints make on a request's history, so the scripted model
 * refuses what they refuse: every tool call answered by exactly one tool message before the next
 * non-tool message, no tool message for an unknown call, no assistant turn with neither text nor calls;
 * and on the Responses API, the reasoning-item rules of `responsesInputProblem`.
 */
import { decryptReasoning } from './responses-wire.js';

type Message = { role: string; [field: string]: any };

/** What is wrong with `messages`, or undefined when a strict endpoint would take them. */
export function historyProblem(messages: readonly Message[]): string | undefined {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool' && !answersOpenCall(messages, i)) {
      return `messages[${i}]: a tool message must answer a tool call of the assistant message before it (tool_call_id ${JSON.stringify(m.tool_call_id)})`;
    }
    if (m.role !== 'assistant') continue;
    const calls: Array<{ id?: string }> = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    const content = typeof m.content === 'string' ? m.content : '';
    if (calls.length === 0 && content.trim() === '') return `messages[${i}]: an assistant message must have content or tool_calls`;
    const answers = new Map<string, number>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) {
      const id = String(messages[j]!.tool_call_id);
      answers.set(id, (answers.get(id) ?? 0) + 1);
    }
    const ids = calls.map((c) => String(c.id));
    if (new Set(ids).size !== ids.length) return `messages[${i}]: tool call ids repeat within one assistant message`;
    for (const id of ids) {
      const n = answers.get(id) ?? 0;
      if (n !== 1) return `messages[${i}]: tool call ${JSON.stringify(id)} has ${n} tool messages, it needs exactly one`;
    }
  }
  return undefined;
}

/** True when the tool message at `at` follows, through tool messages only, an assistant call with its id. */
function answersOpenCall(messages: readonly Message[], at: number): boolean {
  let i = at - 1;
  while (i >= 0 && messages[i]!.role === 'tool') i--;
  const owner = messages[i];
  if (owner?.role !== 'assistant' || !Array.isArray(owner.tool_calls)) return false;
  return owner.tool_calls.some((c: { id?: string }) => c.id === messages[at]!.tool_call_id);
}

/** A Responses request the real API refuses, with the status it answers and its words. */
export interface InputRefusal {
  status: number;
  message: string;
}

type Item = Record<string, any>;

const isReply = (item: Item | undefined) => item?.type === 'function_call' || item?.type === 'message' || item?.role === 'assistant';

/**
 * What the Responses API refuses in `input` about reasoning items: one not followed by what it produced
 * (400), one sent by id alone when `store` is false so nothing was kept to find it by (404), and encrypted
 * content it did not issue (400). Reasoning items are checked as the API checks them; a dropped one is
 * not an error there (a function_call sent without its item id names no reasoning), so not here either.
 */
export function responsesInputProblem(body: Record<string, unknown>): InputRefusal | undefined {
  const input: Item[] = Array.isArray(body.input) ? body.input : [];
  for (let i = 0; i < input.length; i++) {
    const item = input[i]!;
    if (item.type !== 'reasoning') continue;
    let next = i + 1;
    while (input[next]?.type === 'reasoning') next++;
    if (!isReply(input[next])) {
      return { status: 400, message: `Item '${item.id}' of type 'reasoning' was provided without its required following item.` };
    }
    if (typeof item.encrypted_content === 'string') {
      if (decryptReasoning(item.encrypted_content)?.id !== item.id) {
        return { status: 400, message: `The encrypted content for item ${item.id} could not be verified.` };
      }
    } else if (body.store === false) {
      return {
        status: 404,
        message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      };
    }
  }
  return undefined;
}
