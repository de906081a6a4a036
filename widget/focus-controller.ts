/**
 * Where focus goes after a change, in one place. Whatever changes what the user should look at (a new
 * question, a receipt, a refused answer, a failed submission) names the target; once the next render has
 * put it in the DOM, the controller focuses it. Focus never moves for a property a host set without
 * asking: the element decides when to name a target.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export type FocusTarget = 'question' | 'receipt' | 'invalid' | 'server-error';

const SELECTORS: Record<FocusTarget, string[]> = {
  // A §9.2 card's heading comes first and names the whole form; a card of one question starts at its fieldset.
  question: ['h2, fieldset'],
  receipt: ['.receipt'],
  // The retry button when there is one: it is what the user can do next.
  'server-error': ['[part~="retry-button"]', '.server-error'],
  invalid: ['input[aria-invalid="true"]:checked, [aria-invalid="true"]'],
};

export class FocusController implements ReactiveController {
  /** Focused after the next render, then cleared. */
  next?: FocusTarget;

  constructor(private readonly _host: ReactiveControllerHost & { readonly renderRoot: ParentNode }) {
    _host.addController(this);
  }

  hostUpdated(): void {
    const target = this.next;
    if (!target) return;
    this.next = undefined;
    for (const selector of SELECTORS[target]) {
      const el = this._host.renderRoot.querySelector<HTMLElement>(selector);
      if (el) return el.focus();
    }
  }
}
