/**
 * The timeout of one MCP tool call that may ask the user. The SDK's request timeout (60 s by default)
 * counts from the request, so a card left open for a minute ended the call with `MCP error -32001:
 * Request timed out` while the card still waited. This clock counts only while no card of the call is
 * open: a person answering is not a server hanging, and the card's own expiry bounds that wait.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The longest delay `setTimeout` takes; a larger one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export class CallTimer {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #paused = 0;
  #stopped = false;

  constructor(ms: number) {
    if (!(ms > 0)) throw new TypeError(`an MCP call timeout must be a positive number of milliseconds, got ${ms}`);
    this.#ms = Math.min(ms, MAX_TIMER_MS);
    this.#arm();
  }

  /** Aborted with the SDK's own timeout error when the call went quiet for too long. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The server reported progress: the call is alive, count again from now. */
  touch(): void {
    if (this.#paused === 0) this.#arm();
  }

  /** A card of this call is open: stop counting until the returned function is called. */
  pause(): () => void {
    this.#paused++;
    clearTimeout(this.#timer);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.#paused === 0) this.#arm();
    };
  }

  /** The call is over. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#stopped || this.#controller.signal.aborted) return;
    this.#timer = setTimeout(
      () => this.#controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: this.#ms })),
      this.#ms,
    );
  }
}
