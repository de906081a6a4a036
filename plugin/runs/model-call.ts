/**
 * What every turn runner shares about a model call, whatever client it calls through (the loop's `openai`
 * client, the AI SDK's `streamText`): the one error a failed call becomes, which the engine's failure
 * wording reads (failures.ts), and the guard that ends a call whose endpoint went quiet.
 */

/** `model_error` (the call failed), `model_timeout` (the endpoint went quiet), `empty_reply` (no text, no tool call). */
export type ModelErrorCode = 'model_error' | 'model_timeout' | 'empty_reply';

export class ModelCallError extends Error {
  readonly code: ModelErrorCode;
  /** The endpoint's HTTP status, when it answered with one. */
  readonly status: number | undefined;
  constructor(message: string, options?: { cause?: unknown; status?: number; code?: ModelErrorCode }) {
    super(message, options);
    this.name = 'ModelCallError';
    this.code = options?.code ?? 'model_error';
    this.status = options?.status;
  }
}

export const DEFAULT_MODEL_IDLE_TIMEOUT_MS = 120_000;

/** An abort signal that fires when `signal` does, or after `ms` without a `touch()`. */
export function idleGuard(signal: AbortSignal, ms: number) {
  const controller = new AbortController();
  let fired = false;
  const stop = () => controller.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      fired = true;
      controller.abort(new Error('model stream idle'));
    }, ms);
  };
  touch();
  return {
    signal: controller.signal,
    touch,
    get fired() {
      return fired;
    },
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    },
  };
}
