/**
 * How each adapter's body reader refuses a body, in one set of words (docs/protocol.md §4: 400, 413, 415
 * `invalid_request`). None quotes the body or the client's headers: error messages reach logs and audit.
 */
import { AskUserError } from '../core/errors.js';
import { LIMITS } from '../contract/limits.js';

export const bodyErrors = {
  noBody: () => new AskUserError('invalid_request', 'The request has no body; send the answer as a JSON object.'),
  notJson: () => new AskUserError('invalid_request', 'The Content-Type is not JSON; send application/json.', { status: 415 }),
  badEncoding: () =>
    new AskUserError('invalid_request', 'The body uses an unsupported charset or encoding; send UTF-8 JSON.', { status: 415 }),
  tooLarge: () => new AskUserError('invalid_request', `The body is larger than ${LIMITS.bodyBytes} bytes.`, { status: 413 }),
  // No `cause`: a parser's error carries the raw body, which would reach any log of this error.
  notValidJson: () => new AskUserError('invalid_request', 'The body is not valid JSON.'),
};
