/**
 * What a card needs first once the user submits: the answer checks with the server's own rules, the sending
 * of the answer, and what a failed submission means. A chunk of its own in both bundles
 * (submit-rules-loader.ts loads it), so the file a card needs to appear stays small;
 * widget/build/chunk-copies.ts keeps it free of imports.
 */
export { checkForm } from './answer-checks.js';
export { asFailure, failureOutcome } from './failure-outcome.js';
export { sendAnswer } from './submission-send.js';
