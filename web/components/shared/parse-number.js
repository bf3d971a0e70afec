// Parsing a single number the reader typed (eps, a cap, a dimension): plain decimal or exponent notation only.
import { widgetError } from './i18n.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Returns the number, or throws a coded Error (not_a_number, not_in_range) for describeError. */
export function parseNumber(text, { min = -Infinity, max = Infinity, integer = false } = {}) {
  const trimmed = text.trim().replace(/−/g, '-');
  if (!NUMBER.test(trimmed)) throw widgetError('not_a_number');
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw widgetError('not_in_range', { min, max });
  }
  return value;
}
