/**
 * What a card needs first once the user submits: the answer checks with the server's own rules, and what a
 * failed submission means. A chunk of its own in both bundles (submit-rules-loader.ts loads it), so the
 * file a card needs to appear stays small; widget/build/chunk-copies.ts keeps it free of imports.
 */
export { checkForm } from './answer-checks.js';
export { asFailure, failureFromThrown, failureOfResult, failureOutcome, noSession, noSubmitter } from './failure-outcome.js';
