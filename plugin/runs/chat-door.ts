/**
 * A runtime's chat through the kit's door (plugin/core/chat-admission.ts): the admitted session and
 * message, with the stream now open; or undefined when the refusal was written on the stream the chat was
 * given open. Given a function instead, the stream stays closed and the refusal rejects with its
 * `AskUserError`, which the host answers as JSON.
 */
import type { Coordinator } from '../core/coordinator.js';
import { AskUserError } from '../core/errors.js';
import type { SseSink } from '../core/host.js';
import type { ChatInput } from '../core/runtime.js';
import { sendFailure } from './failures.js';

export interface EnteredChat {
  sessionId: string;
  message: string;
  sse: SseSink;
}

export async function enterChat(coordinator: Pick<Coordinator, 'admitChat'>, input: ChatInput): Promise<EnteredChat | undefined> {
  let admitted: { sessionId: string; message: string };
  try {
    admitted = await coordinator.admitChat(input);
  } catch (err) {
    if (typeof input.sse === 'function' || !(err instanceof AskUserError)) throw err;
    sendFailure(input.sse, err.code, err.message);
    input.sse.end();
    return undefined;
  }
  return { ...admitted, sse: typeof input.sse === 'function' ? input.sse() : input.sse };
}
