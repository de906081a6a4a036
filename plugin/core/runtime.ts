/**
 * The seam between the kit and the runtime it builds (the plugin's agent loop, the AI SDK runtime, or
 * another runtime): `createAskUserKit({ runtime })` calls the factory once with its coordinator, and the
 * runtime it returns is the kit's RunHost. Neither needs the other introduced afterwards.
 */
import type { Coordinator } from './coordinator.js';
import type { ChatRequest } from './chat-admission.js';
import type { RunHost, SseSink } from './host.js';

/**
 * What a runtime used of the coordinator before it had one name: a runtime of your own may take any object
 * of this shape. @deprecated Use `Coordinator` (a runtime factory is given the coordinator itself).
 */
export type RuntimeCore = Pick<Coordinator, 'store' | 'intercept' | 'ask' | 'supersede' | 'expireDue' | 'auditRecovered' | 'admitChat'>;

/**
 * What a runtime's `chat` takes: the caller and the fields as the host received them (each is checked:
 * 400 `invalid_request`, 403 `forbidden`), and the chat stream. Given as a function, the stream opens only
 * once the request is admitted, and a refusal rejects with an `AskUserError` the host answers as JSON;
 * given open, a refusal is written on it as an `error` event.
 */
export interface ChatInput extends ChatRequest {
  sse: SseSink | (() => SseSink);
}

/**
 * Builds the run host from the kit's coordinator, once, inside `createAskUserKit({ runtime })`: the kit
 * and its runtime are made by one call and need no introduction afterwards.
 */
export type RuntimeFactory<R extends RunHost> = (coordinator: Coordinator) => R;
