/**
 * The expiry countdown of `<ask-user-card>`: a clock (`now`) that ticks on each whole second of the time
 * left, so the display never skips a number, and a call when the deadline passes. It runs only while the
 * host is connected and the deadline is there to count to; reconnecting starts it again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { remainingMs } from './read-answer.js';

export interface Countdown {
  /** The ISO deadline to count to, or `undefined` when nothing is counting (no request, a closed card). */
  deadline(): string | undefined;
  /** The deadline has passed; called on the tick that finds it so. */
  expired(): void;
}

export class CountdownController implements ReactiveController {
  /** The clock the card's countdown is drawn from. */
  now = Date.now();
  declare private _timer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly _host: ReactiveControllerHost & { readonly isConnected: boolean },
    private readonly _countdown: Countdown,
  ) {
    _host.addController(this);
  }

  /** A new question: its countdown starts from now. */
  reset(): void {
    this.now = Date.now();
  }

  hostConnected(): void {
    // Back in the page: an update restarts the countdown that disconnecting stopped.
    this._host.requestUpdate();
  }

  hostDisconnected(): void {
    this._stop();
  }

  /** After every render: wake at the next whole second of the time left. */
  hostUpdated(): void {
    this._stop();
    const left = this._host.isConnected ? remainingMs(this._countdown.deadline(), Date.now()) : null;
    if (left === null) return;
    this._timer = setTimeout(() => this._tick(), left <= 0 ? 0 : left % 1000 || 1000);
  }

  private _stop(): void {
    clearTimeout(this._timer);
    this._timer = undefined;
  }

  private _tick(): void {
    this._timer = undefined;
    this.now = Date.now();
    this._host.requestUpdate();
    const left = remainingMs(this._countdown.deadline(), this.now);
    if (left !== null && left <= 0) this._countdown.expired();
  }
}
