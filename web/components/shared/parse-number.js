// Parsing a single number the reader typed (eps, a cap, a dimension, a self-check answer): plain decimal or
// exponent notation, read as the lab's vector parser reads each number of a vector (wasm/src/api/parse_vector.hpp):
// full-width digits, "．", "＋", "－", "ｅ" from a Chinese IME and the minus sign "−" read as their ASCII forms, and
// the spaces it skips (no-break, narrow no-break, ideographic) may surround the number.
// tests/js/parse-number.test.mjs holds the two parsers together on a table of inputs.
import { widgetError } from './i18n.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

// The characters parse_vector.hpp's ascii_reading() reads as ASCII, other than its separators and brackets.
const ASCII_READING = new Map([
  ...Array.from({ length: 10 }, (_, d) => [String.fromCharCode(0xff10 + d), String(d)]),
  ['\u2212', '-'],
  ['\uFF0D', '-'],
  ['\uFF0B', '+'],
  ['\uFF0E', '.'],
  ['\uFF45', 'e'],
  ['\uFF25', 'E'],
]);
const READ_AS_ASCII = new RegExp(`[${[...ASCII_READING.keys()].join('')}]`, 'g');
// parse_vector.hpp's spaces: is_space() after ascii_reading().
const SPACES = '[ \\t\\n\\r\\u00A0\\u202F\\u3000]';
const SURROUNDING_SPACE = new RegExp(`^${SPACES}+|${SPACES}+$`, 'g');

/** The text as the vector parser reads one number: ASCII forms, surrounding spaces removed. */
export const asciiNumberText = (text) =>
  text.replace(SURROUNDING_SPACE, '').replace(READ_AS_ASCII, (c) => ASCII_READING.get(c));

/** Returns the number, or throws a coded Error (not_a_number, not_integer, not_in_range) for describeError. */
export function parseNumber(text, { min = -Infinity, max = Infinity, integer = false } = {}) {
  const ascii = asciiNumberText(text);
  if (!NUMBER.test(ascii)) throw widgetError('not_a_number');
  const value = Number(ascii);
  if (integer && Number.isFinite(value) && !Number.isInteger(value)) throw widgetError('not_integer');
  if (!Number.isFinite(value) || value < min || value > max) throw widgetError('not_in_range', { min, max });
  return value;
}
