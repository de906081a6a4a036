/**
 * Sending an answer the rules took (or a cancel): `ask-user-submit`, then `onSubmit` or the card's own call,
 * and what comes back. It runs only once the user acts, so it lives in the rules' chunk (submit-rules.ts),
 * not in the file a card needs to appear. That chunk imports nothing: the event classes and the client call
 * come from the entry (`entry`), so a host still receives the public classes.
 */
import type { Answer } from '../plugin/contract/schema.js';
import type { ErrorOutcome } from './card-state.js';
import { failureFromThrown, failureOfResult, noSession, noSubmitter } from './failure-outcome.js';
import type { AskUserRequest } from './read-answer.js';
import { receiptForAnswer } from './receipt.js';
import type { EntryParts, SubmissionController } from './submission-controller.js';

/** `SubmissionController.send` once the rules are in and the card still waits for this answer to `req`. */
export async function sendAnswer(ctl: SubmissionController, req: AskUserRequest, answer: Answer, entry: EntryParts): Promise<void> {
  const { _card: card, _host: host } = ctl;
  const route = card.route();
  ctl.sent = answer;
  card.submitting(answer);
  const sessionId = req.sessionId || route.sessionId || route.provided?.sessionId || '';
  const { selections, customInput, cancelled } = answer;
  // Copies: a listener or onSubmit that changes what it got cannot change what the card sends or shows.
  const answers = () => answer.answers?.map((a) => ({ ...a, selections: [...a.selections] }));
  const event = new entry.AskUserSubmitEvent({
    requestId: req.id,
    toolCallId: req.toolCallId,
    sessionId,
    selections: [...selections],
    customInput,
    cancelled,
    ...(answer.answers && { answers: answers() }),
  });
  host.dispatchEvent(event);
  if (event.defaultPrevented) return;

  const stillMine = () => card.request()?.id === req.id && card.phase() === 'submitting';
  const accepted = () => card.close(receiptForAnswer(answer, new Date().toISOString()));
  if (route.onSubmit) {
    let result: unknown;
    try {
      // A card of one question keeps its three-argument call.
      result = await (answer.answers
        ? route.onSubmit([...selections], customInput, cancelled, answers())
        : route.onSubmit([...selections], customInput, cancelled));
    } catch (err) {
      if (stillMine()) ctl.fail(failureFromThrown(err), true);
      return;
    }
    if (!stillMine()) return;
    const failure = await failureOfResult(result);
    if (failure) ctl.fail(failure, true);
    else accepted();
    return;
  }

  if (!route.provided && route.endpoint === undefined) return cannotSend(ctl, req, entry);
  if (!sessionId) return ctl.fail(noSession(), true);
  const result = await entry
    .submitUserInput(
      {
        sessionId,
        requestId: req.id,
        ...(answer.answers ? { answers: answers() } : { selections: [...selections], customInput }),
        cancelled,
      },
      { endpoint: route.endpoint ?? route.provided?.endpoint ?? '/api', fetch: route.fetch ?? route.provided?.fetch },
    )
    .catch((err: unknown) => ({ ok: false as const, ...failureFromThrown(err) }));
  if (!stillMine()) return;
  if (!result.ok) return ctl.fail(result, true);
  accepted();
  const { response, events } = result;
  host.dispatchEvent(
    new entry.AskUserContinuedEvent({ requestId: req.id, toolCallId: req.toolCallId, sessionId, answer, response, events }),
  );
}

/**
 * Nothing can send this answer: no provider, no `endpoint`, no `onSubmit`, and no listener took
 * `ask-user-submit` with `preventDefault()`. Waiting in "submitting" would wait for ever, so the card
 * says so. Decided when the user submits, not when the card appears: a provider may still come (the
 * context root in context.ts hands a late provider to the card), so the form stays open with the
 * message, and the next submit uses whatever provider or endpoint is there by then.
 */
function cannotSend(ctl: SubmissionController, req: AskUserRequest, entry: EntryParts): void {
  const outcome: ErrorOutcome = { kind: 'error', key: 'errorNoSubmitter', retry: false };
  ctl._card.refused(outcome);
  ctl._host.dispatchEvent(new entry.AskUserErrorEvent({ requestId: req.id, failure: noSubmitter(), outcome }));
}
