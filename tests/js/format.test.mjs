// Number formatting of the widgets (web/components/shared/format.js) and single-number parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFactor, formatFixed, formatScientific, formatTrimmed, formatVector, powerOfTen } from '../../web/components/shared/format.js';
import { parseNumber } from '../../web/components/shared/parse-number.js';
import { describeError } from '../../web/components/shared/i18n.js';

test('vectors print as the chapter writes them', () => {
  assert.equal(formatVector([1 / 0.935414346693485 * 1, -0.5345224838248488, 1.6035674514745464, 0]), '[1.069, -0.535, 1.604, 0]');
  assert.equal(formatVector(Float32Array.of(4, 1, 9, 0)), '[4, 1, 9, 0]');
  assert.equal(formatTrimmed(3.5), '3.5');
  assert.equal(formatTrimmed(Math.sqrt(3.5)), '1.871');
  assert.equal(formatTrimmed(Math.sqrt(2.5)), '1.581');
});

test('fixed decimals: no negative zero, non-finite values named; trimmed: exact zero is 0', () => {
  assert.equal(formatFixed(0), '0.000');
  assert.equal(formatFixed(-0), '0.000');
  assert.equal(formatTrimmed(-0), '0');
  assert.equal(formatTrimmed(0.0004), '0');
  assert.equal(formatFixed(-0.0001), '0.000');
  assert.equal(formatFixed(29.99969, 1), '30.0');
  assert.equal(formatFixed(9.6402, 1), '9.6');
  assert.equal(formatFixed(NaN), 'NaN');
  assert.equal(formatFixed(-Infinity), '-∞');
});

test('scientific notation gives text and a machine-readable value', () => {
  assert.deepEqual(formatScientific(3.14e-8), { text: '3.1 × 10⁻⁸', value: '3.1e-8' });
  assert.deepEqual(formatScientific(0.42), { text: '0.42', value: '0.42' });
  assert.deepEqual(formatScientific(12345), { text: '1.2 × 10⁴', value: '1.2e4' });
  assert.deepEqual(formatScientific(0), { text: '0', value: '0' });
  assert.equal(Number(formatScientific(2.75e-5).value), 2.8e-5);
  assert.equal(powerOfTen(-4), '10⁻⁴');
  assert.equal(powerOfTen(0), '1');
});

test('slider factors', () => {
  assert.equal(formatFactor(10 ** 1), '×10');
  assert.equal(formatFactor(10 ** -1), '×0.1');
  assert.equal(formatFactor(10 ** 2), '×100');
  assert.equal(formatFactor(Number((10 ** 0.2).toPrecision(3))), '×1.58', 'the factor used, not a rounder one');
  assert.equal(formatFactor(65540.2), '×65,540', 'one form: grouped digits, no "×6.554 × 10⁴"');
  assert.equal(formatFactor(2.048e6), '×2.05 × 10⁶');
  assert.equal(formatFactor(1.1297), '×1.13');
});

test('parseNumber accepts plain and exponent notation and names the problem otherwise', () => {
  assert.equal(parseNumber('1e-5'), 1e-5);
  assert.equal(parseNumber(' 0.5 '), 0.5);
  assert.equal(parseNumber('−2'), -2);
  assert.throws(() => parseNumber('abc'), { code: 'not_a_number' });
  assert.throws(() => parseNumber('0x10'), { code: 'not_a_number' });
  assert.throws(() => parseNumber('2', { max: 1 }), { code: 'not_in_range', max: 1 });
  assert.throws(() => parseNumber('2.5', { integer: true }), { code: 'not_in_range' });
});

test('a one-sided range is said as one bound, never "between -Infinity and 1000"', () => {
  const message = (text, range, lang = 'en') => {
    try { parseNumber(text, range); } catch (error) { return describeError(error, lang, text); }
    return null;
  };
  assert.equal(message('2000', { max: 1000 }), 'must be at most 1000');
  assert.equal(message('-1', { min: 0 }), 'must be at least 0');
  assert.equal(message('5', { min: 0, max: 1 }), 'must be between 0 and 1');
  assert.equal(message('2000', { max: 1000 }, 'zh'), '不能大于 1000');
  assert.equal(message('-1', { min: 0 }, 'zh'), '不能小于 0');
});
