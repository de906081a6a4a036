/**
 * The card tests' assertions (no chai here). Each failure names what was expected and what came, so a
 * red test explains itself without a debugger.
 */
const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

export class ExpectationError extends Error {
  override readonly name = 'ExpectationError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ExpectationError(message);
}

export function equal<T>(actual: T, expected: T, what = 'value'): void {
  if (!Object.is(actual, expected)) throw new ExpectationError(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEqual(actual: unknown, expected: unknown, what = 'value'): void {
  if (show(actual) !== show(expected)) throw new ExpectationError(`${what}:\n  expected ${show(expected)}\n  got      ${show(actual)}`);
}

export function includes(haystack: string | null | undefined, needle: string, what = 'text'): void {
  if (!(haystack ?? '').includes(needle)) throw new ExpectationError(`${what}: expected to contain ${show(needle)}, got ${show(haystack)}`);
}

export function excludes(haystack: string | null | undefined, needle: string, what = 'text'): void {
  if ((haystack ?? '').includes(needle))
    throw new ExpectationError(`${what}: expected not to contain ${show(needle)}, got ${show(haystack)}`);
}

/**
 * Waits until `condition` holds, re-checking after each macrotask. A wait, not a timing assertion: the
 * generous limit only turns a hang into a readable failure.
 */
export async function until<T>(condition: () => T | Promise<T>, what: string, limitMs = 5000): Promise<NonNullable<T>> {
  const start = performance.now();
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (performance.now() - start > limitMs) throw new ExpectationError(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
