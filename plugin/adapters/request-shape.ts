/** Small readers the adapters share when they build a RouteRequest, and how their body readers refuse. */
import { AskUserError } from '../core/errors.js';
import { LIMITS } from '../contract/limits.js';

/** A query or header value as the routes take it: one value, every value when repeated, or undefined. */
export function oneOrAll(values: readonly string[]): string | readonly string[] | undefined {
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0] : values;
}

/** A header value as one string (Node gives repeated headers as arrays; the routes read single ones). */
export const headerValue = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : value?.[0];

/** `application/json` or any `application/…+json`, by the media type alone (parameters aside). */
export function isJsonMediaType(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/** A declared Content-Type that is not JSON is refused before anything else, even on an empty body (§4 order). */
export const notJsonType = (contentType: string | undefined): boolean => !!contentType && !isJsonMediaType(contentType);

/**
 * How each adapter's body reader refuses a body, in one set of words (docs/protocol.md §4: 400, 413, 415
 * `invalid_request`). None quotes the body or the client's headers: error messages reach logs and audit.
 */
export const bodyErrors = {
  noBody: () => new AskUserError('invalid_request', 'The request has no body; send the answer as a JSON object.'),
  notJson: () => new AskUserError('invalid_request', 'The Content-Type is not JSON; send application/json.', { status: 415 }),
  badEncoding: () =>
    new AskUserError('invalid_request', 'The body uses an unsupported charset or encoding; send UTF-8 JSON.', { status: 415 }),
  tooLarge: () => new AskUserError('invalid_request', `The body is larger than ${LIMITS.bodyBytes} bytes.`, { status: 413 }),
  // No `cause`: a parser's error carries the raw body, which would reach any log of this error.
  notValidJson: () => new AskUserError('invalid_request', 'The body is not valid JSON.'),
};
