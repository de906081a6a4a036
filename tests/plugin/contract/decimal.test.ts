/** Exact decimal arithmetic behind the number bounds of docs/protocol.md §9.1: never binary floating point. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareDecimal, isOnStep, parseDecimal, type Decimal } from '../../../plugin/contract/decimal.js';

const dec = (s: string | number): Decimal => {
  const d = parseDecimal(s);
  assert.ok(d, `parses ${s}`);
  return d;
};
const onStep = (value: string, step: string | number, base?: string | number) =>
  isOnStep(dec(value), dec(step), base === undefined ? undefined : dec(base));

/** A decimal written as an integer count of 10^-scale, so the test's own arithmetic is exact. */
const scaled = fc.record({ units: fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), scale: fc.integer({ min: 0, max: 12 }) });
const spell = ({ units, scale }: { units: bigint; scale: number }): string => {
  const neg = units < 0n;
  const digits = (neg ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return (neg ? '-' : '') + text;
};
const atScale = (units: bigint, from: number, to: number) => units * 10n ** BigInt(to - from);

test('parses the spellings of a finite decimal and normalises them', () => {
  assert.deepEqual(dec('42'), { sign: 1, digits: 42n, exp: 0 });
  assert.deepEqual(dec('-3.50'), { sign: -1, digits: 35n, exp: -1 });
  assert.deepEqual(dec('.5'), { sign: 1, digits: 5n, exp: -1 });
  assert.deepEqual(dec('3.'), { sign: 1, digits: 3n, exp: 0 });
  assert.deepEqual(dec('1e3'), { sign: 1, digits: 1n, exp: 3 });
  assert.deepEqual(dec('2500'), { sign: 1, digits: 25n, exp: 2 });
  assert.deepEqual(dec('-0.000'), { sign: 0, digits: 0n, exp: 0 });
  assert.deepEqual(dec(0.1), { sign: 1, digits: 1n, exp: -1 }, 'a JSON number is read as its shortest spelling');
  assert.deepEqual(dec(1e-7), { sign: 1, digits: 1n, exp: -7 });
  for (const bad of ['', '.', '-', 'e5', '0x10', 'NaN', '1,5', '1 2', Infinity, NaN])
    assert.equal(parseDecimal(bad), undefined, String(bad));
});

test('the classic binary traps are exact here', () => {
  assert.ok(onStep('0.3', 0.1), '0.3 is on the grid of 0.1');
  assert.ok(onStep('0.7', 0.1));
  assert.ok(onStep('1.1', 0.1, 0.2), 'min 0.2, step 0.1: 1.1');
  assert.ok(onStep('0.3', 0.1, 0.1));
  assert.ok(!onStep('0.35', 0.1));
  assert.ok(onStep('-0.3', 0.1), 'negative multiples without min');
  assert.ok(onStep('5.5', 1, 0.5), 'min 0.5, step 1: 5.5');
  assert.ok(!onStep('5', 1, 0.5));
  assert.ok(onStep('1e2', 25));
  assert.ok(onStep('100.000', 25));
  assert.ok(!onStep('0.1000000000000000001', 0.1), 'a digit below the grid is off it');
  assert.ok(!onStep('1e-400', 0.1));
  assert.equal(compareDecimal(dec('5.0000000000000001'), dec(5)), 1, 'above 5, though Number() says 5');
  assert.equal(compareDecimal(dec('0.30'), dec(0.3)), 0);
  assert.throws(() => isOnStep(dec('1'), dec('0')), RangeError);
});

test('equal negative decimals compare as 0, not -0', () => {
  assert.equal(compareDecimal(dec('-0.4'), dec('-0.40')), 0);
});

test('property: compareDecimal orders like exact integer arithmetic on a common scale', () => {
  fc.assert(
    fc.property(scaled, scaled, (a, b) => {
      const s = Math.max(a.scale, b.scale);
      const x = atScale(a.units, a.scale, s);
      const y = atScale(b.units, b.scale, s);
      const expected = x === y ? 0 : x < y ? -1 : 1;
      assert.equal(compareDecimal(dec(spell(a)), dec(spell(b))), expected);
      assert.equal(compareDecimal(dec(spell(b)), dec(spell(a))), expected === 0 ? 0 : -expected);
    }),
    { numRuns: 500 },
  );
});

test('property: base + k × step is always on the grid, for any whole k of either sign', () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 1n, max: 10n ** 9n }),
      fc.integer({ min: 0, max: 9 }),
      fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
      fc.integer({ min: 0, max: 9 }),
      fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
      (stepUnits, stepScale, baseUnits, baseScale, k) => {
        const s = Math.max(stepScale, baseScale);
        const value = atScale(baseUnits, baseScale, s) + k * atScale(stepUnits, stepScale, s);
        const step = spell({ units: stepUnits, scale: stepScale });
        const base = spell({ units: baseUnits, scale: baseScale });
        assert.ok(onStep(spell({ units: value, scale: s }), step, base), `${base} + ${k} × ${step}`);
        // A nudge smaller than the step's grid unit leaves it.
        const nudged = value * 10n + 1n;
        assert.ok(!onStep(spell({ units: nudged, scale: s + 1 }), step, base));
      },
    ),
    { numRuns: 500 },
  );
});

test('property: on the grid exactly when the scaled difference divides by the scaled step', () => {
  fc.assert(
    fc.property(scaled, fc.record({ units: fc.bigInt({ min: 1n, max: 10n ** 6n }), scale: fc.integer({ min: 0, max: 6 }) }), (v, st) => {
      const s = Math.max(v.scale, st.scale);
      const expected = atScale(v.units, v.scale, s) % atScale(st.units, st.scale, s) === 0n;
      assert.equal(onStep(spell(v), spell(st)), expected);
    }),
    { numRuns: 500 },
  );
});

test('property: JSON-number steps such as 0.1, 0.01, 0.05 accept every multiple that Number() gets wrong', () => {
  fc.assert(
    fc.property(fc.constantFrom(0.1, 0.01, 0.05, 0.2, 0.25, 1.5), fc.integer({ min: -100_000, max: 100_000 }), (step, k) => {
      const d = dec(step);
      const units = BigInt(k) * d.digits;
      assert.ok(onStep(spell({ units, scale: -d.exp }), step));
    }),
    { numRuns: 300 },
  );
});
