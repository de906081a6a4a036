/** Small readers the adapters share when they build a RouteRequest. */

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
