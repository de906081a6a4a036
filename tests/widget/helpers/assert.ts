/**
 * A few assertions for the browser tests of the reader and client (no chai in this project). Each
 * failure says what was expected and what came, as JSON, so a red test explains itself.
 */
const show = (value: unknown) => {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
};

export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

function deepEqualValues(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.prototype.hasOwnProperty.call(b, k) && deepEqualValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

export function ok(value: unknown, message = 'expected a truthy value'): asserts value {
  if (!value) throw new AssertionError(`${message} (got ${show(value)})`);
}

export function equal<T>(actual: T, expected: T, message = 'values differ'): void {
  if (!Object.is(actual, expected)) throw new AssertionError(`${message}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEqual(actual: unknown, expected: unknown, message = 'structures differ'): void {
  if (!deepEqualValues(actual, expected)) {
    throw new AssertionError(`${message}:\n  expected ${show(expected)}\n  got      ${show(actual)}`);
  }
}

/** Awaits `run`, expects it to throw, and returns the error for further checks. */
export async function rejects(run: () => unknown, message = 'expected a rejection'): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new AssertionError(message);
}

/** Runs `fn` and returns what it threw synchronously; fails when it did not throw. */
export function throws(fn: () => unknown, message = 'expected a throw'): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new AssertionError(message);
}
