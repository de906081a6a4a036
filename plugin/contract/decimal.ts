/**
 * Exact decimal arithmetic for the number bounds of docs/protocol.md §9.1: comparisons and the `step` grid
 * are computed on the decimal digits (scaled BigInt), never in binary floating point, so 0.3 is on the grid
 * of step 0.1. No dependency: it ships in the browser with the answer rules.
 */

/** `digits × 10^exp`, with `sign` 0 for zero; `digits` has no trailing zero unless the value is zero. */
export interface Decimal {
  sign: -1 | 0 | 1;
  digits: bigint;
  exp: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const ZERO: Decimal = Object.freeze({ sign: 0, digits: 0n, exp: 0 }) as Decimal;

/**
 * The exact value of a decimal string (`42`, `-3.5`, `.5`, `3.`, `1e-7`) or of a JSON number (through its
 * shortest round-trip spelling, which is what the model wrote). `undefined` for anything else.
 */
export function parseDecimal(value: string | number): Decimal | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    value = String(value);
  }
  const m = DECIMAL.exec(value.trim());
  if (!m) return undefined;
  const [, signText = '', whole = '', fraction = '', expText] = m;
  if (whole === '' && fraction === '') return undefined;
  let mantissa = (whole + fraction).replace(/^0+/, '');
  if (mantissa === '') return ZERO;
  let exp = (expText === undefined ? 0 : Number(expText)) - fraction.length;
  const trimmed = mantissa.replace(/0+$/, '');
  exp += mantissa.length - trimmed.length;
  mantissa = trimmed;
  return { sign: signText === '-' ? -1 : 1, digits: BigInt(mantissa), exp };
}

const digitCount = (d: Decimal) => d.digits.toString().length;
const pow10 = (n: number) => 10n ** BigInt(n);

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  if (a.sign !== b.sign) return a.sign < b.sign ? -1 : 1;
  if (a.sign === 0) return 0;
  // Same sign: compare magnitudes by order first, so a huge exponent is never expanded.
  const orderA = digitCount(a) + a.exp;
  const orderB = digitCount(b) + b.exp;
  let magnitude: -1 | 0 | 1;
  if (orderA !== orderB) magnitude = orderA < orderB ? -1 : 1;
  else {
    const e = Math.min(a.exp, b.exp);
    const x = a.digits * pow10(a.exp - e);
    const y = b.digits * pow10(b.exp - e);
    magnitude = x === y ? 0 : x < y ? -1 : 1;
  }
  // `-0` is not 0 to Object.is: equal negatives compare as a plain 0.
  return (a.sign === 1 || magnitude === 0 ? magnitude : -magnitude) as -1 | 0 | 1;
}

/**
 * Whether `value` is `base + k × step` for a whole number `k` (any sign; a `min` bound keeps `k` ≥ 0 by
 * itself). `step` must be positive. Exact: the three values are scaled to their finest common exponent.
 */
export function isOnStep(value: Decimal, step: Decimal, base: Decimal = ZERO): boolean {
  if (step.sign !== 1) throw new RangeError('step must be positive');
  const exps = [step.exp, ...(base.sign === 0 ? [] : [base.exp])];
  const grid = Math.min(...exps);
  // Every point of the grid is a multiple of 10^grid; a value with a non-zero digit below it is not.
  if (value.sign !== 0 && value.exp < grid) return false;
  const scaled = (d: Decimal) => (d.sign === 0 ? 0n : BigInt(d.sign) * d.digits * pow10(d.exp - grid));
  return (scaled(value) - scaled(base)) % scaled(step) === 0n;
}
